import { Annotations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { formatRuleWarnings } from '../shared/rules/problem-format.js';
import type { DeployConfig } from './config.js';
import { deployedConnections } from './deploy-connections.js';
import { NothingToPollError } from './errors.js';
import { networkWarnings, resolveNetworkPlan } from './network-plan.js';
import type { RulePackFile } from './rule-pack-file.js';

/**
 * A stack with no source deploys a poller that fails every tick (`PollConfigError`), firing
 * `FunctionErrors` and `HeartbeatMissing`: refused, unless `sources.allowNone` says it is meant (the
 * poller then completes each tick at once).
 */
export function refuseNothingToPoll(config: DeployConfig): void {
  const { orgIds, projectIds, allowNone } = config.sources;
  // Each connection names a source (the deploy configuration checks it).
  if (orgIds.length > 0 || projectIds.length > 0 || config.connections.length > 0 || allowNone) return;
  throw new NothingToPollError(
    [
      'The deploy configuration names no Atlas organization and no project: the deployed poller would have nothing to poll and fail every tick. Set one of these in the AtlasAuditAlerts props, or (deploying from a clone) in the cdk.json context "atlasAuditAlerts" or the file given with --context config=FILE (as in infra/examples/config.example.yaml):',
      '  - sources.orgIds: your organization ids (with sources.allProjectsOfOrgs: true, all their projects too)',
      '  - sources.projectIds: project ids',
      'To deploy before you know them, set sources.allowNone: true: the poller then runs and reads nothing.',
    ].join('\n'),
  );
}

/**
 * The rule warnings that did not fail the synth, as one synth warning; a layer list that leaves the
 * built-in pack out (or puts it later) as a warning of its own, naming the layers, since it silently
 * drops most detections.
 */
export function warnAboutRules(scope: IConstruct, rulePack: RulePackFile): void {
  const annotations = Annotations.of(scope);
  const order = rulePack.warnings.find((warning) => warning.code === 'LAYER_ORDER');
  if (order !== undefined) {
    annotations.addWarningV2(
      'atlas-audit-alerts:ruleLayers',
      `Rule layers (rules.directories): ${rulePack.layers.join(', ')}: ${order.message}`,
    );
  }
  const others = rulePack.warnings.filter((warning) => warning !== order);
  if (others.length > 0) {
    annotations.addWarningV2(
      'atlas-audit-alerts:ruleWarnings',
      `Rule files have ${others.length === 1 ? '1 warning' : `${others.length} warnings`} (rules.strict: true fails synth on them):\n${formatRuleWarnings(others)}`,
    );
  }
}

export function warnAboutGaps(scope: IConstruct, config: DeployConfig): void {
  const annotations = Annotations.of(scope);
  // Without sources.allowNone a stack with no source fails synth (see the deploy configuration's checks).
  if (
    config.sources.orgIds.length === 0 &&
    config.sources.projectIds.length === 0 &&
    config.connections.length === 0
  ) {
    annotations.addWarningV2(
      'atlas-audit-alerts:noSources',
      'sources.allowNone is set and no Atlas org or project is configured: each tick completes at once and reads nothing. Set sources.orgIds or sources.projectIds (see infra/examples/config.example.yaml), remove sources.allowNone, and deploy again.',
    );
  }
  if (config.alerts.emails.length === 0 && config.alerts.slack === undefined) {
    annotations.addWarningV2(
      'atlas-audit-alerts:noAlertDelivery',
      'No alert email address and no Slack channel are configured: alerts reach only what you subscribe to the AlertTopicArn output yourself.',
    );
  }
  if (config.operations.emails.length === 0) {
    annotations.addWarningV2(
      'atlas-audit-alerts:noOperationsEmail',
      'No operations email address is configured: the alarms (failed ticks, Atlas refusing the credentials) notify nobody. Set operations.emails.',
    );
  }
  const networkPlan = resolveNetworkPlan({
    network: config.network,
    atlasBaseUrls: deployedConnections(config).map((connection) => connection.baseUrl),
  });
  for (const { id, message } of networkWarnings(networkPlan)) annotations.addWarningV2(id, message);
}
