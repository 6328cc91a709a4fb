import { RemovalPolicy } from 'aws-cdk-lib';
import {
  CfnEIP,
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpoint,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpoint,
  InterfaceVpcEndpointAwsService,
  IpAddresses,
  type ISecurityGroup,
  type ISubnet,
  type IVpc,
  NatProvider,
  Peer,
  Port,
  SecurityGroup,
  Subnet,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { CreateVpcPlan, ExistingVpcPlan } from '../network-plan.js';

/** What a Lambda function needs to run in the poller's network: its VPC, subnets and security groups. */
export interface FunctionNetwork {
  vpc: IVpc;
  subnets: ISubnet[];
  securityGroups: ISecurityGroup[];
}

export interface PollerNetworkProps {
  /** The validated plan of a VPC mode. */
  plan: CreateVpcPlan | ExistingVpcPlan;
  /** How long the created VPC's flow logs are kept. */
  flowLogRetentionDays: number;
  /**
   * With the plan's interface endpoints, one for SQS too: the fan-out dispatcher sends to its queue
   * and the workers delay messages. Default false.
   */
  sqsEndpoint?: boolean;
  /**
   * In a created VPC, an S3 gateway endpoint too: the audit log function reads exported objects (up
   * to gigabytes) without paying NAT data charges. Default false.
   */
  s3Endpoint?: boolean;
}

/** The address range of a created VPC: four /26 subnets, two public (NAT) and two private (the poller). */
const CREATED_VPC_CIDR = '10.0.0.0/24';

/**
 * The network the poller runs in when it needs a fixed egress address or a private route to Ops
 * Manager: the VPC (created, or the user's imported by id with no lookup), the function's security
 * group (outbound to the Atlas port and HTTPS only, no inbound), a DynamoDB gateway endpoint, and
 * optionally interface endpoints for Secrets Manager and SNS (and SQS, with fan-out). A created VPC spans two availability
 * zones, has one or two NAT gateways on Elastic IPs the stack owns (so their addresses are known and
 * printed as an output) and keeps flow logs.
 */
export class PollerNetwork extends Construct {
  /** What to hand to every function that talks to Atlas or the stack's AWS services. */
  readonly functionNetwork: FunctionNetwork;
  /** The public addresses the poller's requests leave from, when the stack creates them. */
  readonly egressAddresses: string[] | undefined;

  constructor(scope: Construct, id: string, props: PollerNetworkProps) {
    super(scope, id);
    const { plan } = props;
    const { vpc, subnets, egressAddresses } =
      plan.mode === 'create-vpc' ? this.createVpc(plan, props.flowLogRetentionDays) : this.importVpc(plan);

    const securityGroups =
      plan.mode === 'existing-vpc' && plan.securityGroupIds !== undefined
        ? plan.securityGroupIds.map((groupId, index) =>
            SecurityGroup.fromSecurityGroupId(this, `SecurityGroup${index + 1}`, groupId, { mutable: false }),
          )
        : [this.egressOnlySecurityGroup(vpc, plan.egressPorts)];

    if (plan.mode === 'create-vpc' || plan.dynamoDbGatewayEndpoint) {
      new GatewayVpcEndpoint(this, 'DynamoDbEndpoint', {
        vpc,
        service: GatewayVpcEndpointAwsService.DYNAMODB,
        subnets: [{ subnets }],
      });
    }
    if (plan.mode === 'create-vpc' && props.s3Endpoint === true) {
      new GatewayVpcEndpoint(this, 'S3Endpoint', {
        vpc,
        service: GatewayVpcEndpointAwsService.S3,
        subnets: [{ subnets }],
      });
    }
    if (plan.interfaceEndpoints) {
      this.addInterfaceEndpoints(vpc, subnets, securityGroups, props.sqsEndpoint ?? false);
    }

    this.functionNetwork = { vpc, subnets, securityGroups };
    this.egressAddresses = egressAddresses;
  }

  private createVpc(
    plan: CreateVpcPlan,
    flowLogRetentionDays: number,
  ): { vpc: IVpc; subnets: ISubnet[]; egressAddresses: string[] } {
    // The stack owns the Elastic IPs rather than letting the NAT provider make them, so they keep their
    // logical ids (and addresses) when the NAT gateways change, e.g. from one to two.
    const addresses = Array.from(
      { length: plan.natGateways },
      (_, index) => new CfnEIP(this, `EgressAddress${index + 1}`, { domain: 'vpc' }),
    );
    const vpc = new Vpc(this, 'Vpc', {
      ipAddresses: IpAddresses.cidr(CREATED_VPC_CIDR),
      maxAzs: 2,
      natGateways: plan.natGateways,
      natGatewayProvider: NatProvider.gateway({
        eipAllocationIds: addresses.map((address) => address.attrAllocationId),
      }),
      subnetConfiguration: [
        { name: 'Nat', subnetType: SubnetType.PUBLIC, cidrMask: 26, mapPublicIpOnLaunch: false },
        { name: 'Poller', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 26 },
      ],
    });
    const flowLogs = new LogGroup(this, 'FlowLogs', {
      retention: flowLogRetentionDays as RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    vpc.addFlowLog('FlowLog', {
      destination: FlowLogDestination.toCloudWatchLogs(flowLogs),
      trafficType: FlowLogTrafficType.ALL,
    });
    return {
      // A Vpc is an IVpc; exactOptionalPropertyTypes disagrees over one optional attribute.
      vpc: vpc as IVpc,
      subnets: vpc.selectSubnets({ subnetType: SubnetType.PRIVATE_WITH_EGRESS }).subnets,
      egressAddresses: addresses.map((address) => address.attrPublicIp),
    };
  }

  private importVpc(plan: ExistingVpcPlan): { vpc: IVpc; subnets: ISubnet[]; egressAddresses: undefined } {
    const vpc = Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: plan.vpcId,
      availabilityZones: [...new Set(plan.subnets.map((subnet) => subnet.availabilityZone))],
    });
    const subnets = plan.subnets.map((subnet) =>
      Subnet.fromSubnetAttributes(this, subnet.id, {
        subnetId: subnet.id,
        availabilityZone: subnet.availabilityZone,
        ...(subnet.routeTableId === undefined ? {} : { routeTableId: subnet.routeTableId }),
      }),
    );
    return { vpc, subnets, egressAddresses: undefined };
  }

  private egressOnlySecurityGroup(vpc: IVpc, ports: readonly number[]): SecurityGroup {
    const group = new SecurityGroup(this, 'SecurityGroup', {
      vpc,
      description: 'atlas-audit-alerts poller: outbound to Atlas and the AWS APIs only, nothing inbound',
      allowAllOutbound: false,
    });
    for (const port of ports) {
      group.addEgressRule(
        Peer.anyIpv4(),
        Port.tcp(port),
        port === 443 ? 'HTTPS to Atlas and the AWS APIs' : `The Atlas base URL's port ${port}`,
      );
    }
    return group;
  }

  /**
   * Interface endpoints for the AWS APIs the functions call that have no gateway endpoint (Secrets
   * Manager, SNS, and SQS with fan-out), in one subnet per zone, with private DNS so the SDK's default
   * endpoints resolve to them. Their security group admits HTTPS from the poller's groups only and
   * sends nothing out. (The event source mapping's own reads of the queue are Lambda's, outside the VPC.)
   */
  private addInterfaceEndpoints(
    vpc: IVpc,
    subnets: ISubnet[],
    pollerGroups: ISecurityGroup[],
    sqs: boolean,
  ): void {
    const group = new SecurityGroup(this, 'EndpointSecurityGroup', {
      vpc,
      description: 'atlas-audit-alerts endpoints: HTTPS from the poller only',
      allowAllOutbound: false,
    });
    pollerGroups.forEach((pollerGroup) => {
      group.addIngressRule(pollerGroup, Port.tcp(443), 'HTTPS from the poller');
    });
    const services: Array<[string, InterfaceVpcEndpointAwsService]> = [
      ['SecretsManagerEndpoint', InterfaceVpcEndpointAwsService.SECRETS_MANAGER],
      ['SnsEndpoint', InterfaceVpcEndpointAwsService.SNS],
    ];
    if (sqs) services.push(['SqsEndpoint', InterfaceVpcEndpointAwsService.SQS]);
    for (const [name, service] of services) {
      new InterfaceVpcEndpoint(this, name, {
        vpc,
        service,
        subnets: { subnets, onePerAz: true },
        securityGroups: [group],
        privateDnsEnabled: true,
        open: false,
      });
    }
  }
}
