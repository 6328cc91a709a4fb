import { Aws } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';

export interface GrantQueueSendOptions {
  grantee: IGrantable;
  queue: Pick<IQueue, 'queueArn'>;
  /** The customer managed key the queue is encrypted with. */
  key: Pick<IKey, 'keyArn'>;
}

/**
 * Lets `grantee` send to one encrypted queue: `sqs:SendMessage` (which `SendMessageBatch` needs) on
 * that queue, and the two key actions SQS performs on the sender's behalf, usable only through SQS.
 * `Queue.grantSendMessages` grants `kms:GenerateDataKey*` and `kms:ReEncrypt*` for any use instead.
 *
 * @example
 * ```ts
 * grantQueueSend({ grantee: role, queue, key });
 * ```
 */
export function grantQueueSend({ grantee, queue, key }: GrantQueueSendOptions): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
  );
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: [key.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `sqs.${Aws.REGION}.amazonaws.com` } },
    }),
  );
}
