import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { stateTableSchema } from '../../shared/state/index.js';

export interface StateTableProps {
  /** Keep the table when the stack is deleted (`retain`) or delete it with the stack (`destroy`). */
  removalPolicy: 'retain' | 'destroy';
  deletionProtection: boolean;
}

/**
 * The poller's state: watermarks, processed event ids, alert records, leases, rule counters and
 * inventory snapshots, in one on-demand table with a TTL. Encrypted with the AWS managed key rather than
 * the stack's key: a retained table must stay readable after the stack and its key are gone.
 */
export class StateTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: StateTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: stateTableSchema.partitionKey, type: AttributeType.STRING },
      sortKey: { name: stateTableSchema.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: stateTableSchema.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection,
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
