import { Aws, CfnElement, type Duration, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  ContextAttribute,
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
  TimeWindow,
} from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import { SCHEDULED_TIME_KEY } from '../../shared/fan-out/tick-identity.js';

export interface PollScheduleProps {
  poller: IFunction;
  /** How often the poller runs. */
  every: Duration;
}

/**
 * The EventBridge Scheduler schedule that starts a tick every period. Retries are off: a tick that
 * failed to start is not worth running late, because the next one reads the same window again. The
 * input carries the run's scheduled time (`{"scheduledTime": "2026-11-24T03:05:00Z"}`), the same in
 * every delivery of one run: the fan-out dispatcher names its tick by it, so a duplicate delivery
 * queues no source twice. The single poller ignores its input.
 */
export class PollSchedule extends Construct {
  readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: PollScheduleProps) {
    super(scope, id);
    const role = new Role(this, 'InvokeRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: {
            'aws:SourceAccount': Aws.ACCOUNT_ID,
            'aws:SourceArn': `arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule-group/default`,
          },
        },
      }),
      description: 'Lets EventBridge Scheduler start the atlas-audit-alerts poller',
    });
    this.schedule = new Schedule(this, 'Schedule', {
      description: 'Starts an atlas-audit-alerts poll tick',
      schedule: ScheduleExpression.rate(props.every),
      timeWindow: TimeWindow.off(),
      target: new LambdaInvoke(props.poller, {
        role,
        retryAttempts: 0,
        input: ScheduleTargetInput.fromObject({ [SCHEDULED_TIME_KEY]: ContextAttribute.scheduledTime }),
      }),
    });
    const cfnFunction = props.poller.node.defaultChild;
    if (!CfnElement.isCfnElement(cfnFunction)) {
      throw new Error(`The poller ${props.poller.node.path} has no CloudFormation resource to schedule`);
    }
    const functionLogicalId = Stack.of(this).getLogicalId(cfnFunction);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionLogicalId}.Arn>:*]`,
      reason:
        "The grant covers this one function and its versions and aliases (CDK's grantInvoke); the schedule invokes the unqualified function.",
    });
  }
}
