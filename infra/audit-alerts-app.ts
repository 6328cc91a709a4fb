import { join } from 'node:path';
import { Annotations, type App, type Environment, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { formatRuleWarnings } from '../shared/rules/problem-format.js';
import { AuditAlertsStack } from './audit-alerts-stack.js';
import { DEPLOY_CONFIG_CONTEXT_KEY, DEPLOY_CONFIG_FILE_CONTEXT_KEY, type DeployConfig } from './config.js';
import { resolveDeployConfig } from './config-source.js';
import { deployedConnections } from './deploy-connections.js';
import { NothingToPollError } from './errors.js';
import { networkWarnings, resolveNetworkPlan } from './network-plan.js';
import { buildRulePackModule, type RulePackModule } from './rule-pack-module.js';

export interface AddAuditAlertsStackOptions {
  app: App;
  /** The directory holding `cdk.json`, `package.json`, `functions/` and the default `rules/`. */
  projectRoot: string;
  /** The account and region the CLI resolved, used when the configuration does not pin them. */
  defaultEnv?: Environment | undefined;
}

export interface AuditAlertsDeployment {
  stack: AuditAlertsStack;
  config: DeployConfig;
  rulePack: RulePackModule;
}

/**
 * Adds the atlas-audit-alerts stack to a CDK app: resolves the deploy configuration from the app's
 * context, validates and compiles the rule files, builds the stack, and runs cdk-nag's AwsSolutions
 * checks on the whole app at synth.
 *
 * @throws {DeployConfigError | DeployConfigFileError} when the configuration is invalid or unreadable.
 * @throws {NothingToPollError} when it names no organization and no project without `sources.allowNone`.
 * @throws {RuleLoadError} when a rule file is invalid: the message lists file:line:column for each problem.
 * @throws {RulePackTooLargeError} when the rules, loaded, would not fit the function's memory.
 * @throws {PollerEnvironmentTooLargeError} when the poller's configuration would not fit Lambda's limit.
 * @example
 * ```ts
 * const app = new App();
 * await addAuditAlertsStack({ app, projectRoot: process.cwd() });
 * app.synth();
 * ```
 */
export async function addAuditAlertsStack({
  app,
  projectRoot,
  defaultEnv,
}: AddAuditAlertsStackOptions): Promise<AuditAlertsDeployment> {
  const config = resolveDeployConfig({
    context: app.node.tryGetContext(DEPLOY_CONFIG_CONTEXT_KEY),
    configFile: app.node.tryGetContext(DEPLOY_CONFIG_FILE_CONTEXT_KEY),
    projectRoot,
  });
  refuseNothingToPoll(config);
  const rulePack = await buildRulePackModule({
    paths: config.rules.directories,
    projectRoot,
    outputDirectory: join(app.outdir, 'rule-pack'),
    strict: config.rules.strict,
    memory:
      config.fanOut.mode !== 'off' && config.fanOut.workerMemoryMiB < config.poller.memoryMiB
        ? { memoryMiB: config.fanOut.workerMemoryMiB, setting: 'fanOut.workerMemoryMiB' }
        : { memoryMiB: config.poller.memoryMiB, setting: 'poller.memoryMiB' },
  });
  const env = definedOnly({ ...defaultEnv, ...config.env });
  const stack = new AuditAlertsStack(app, config.stackName, {
    description: 'atlas-audit-alerts: security alerts from the MongoDB Atlas activity feed',
    ...(Object.keys(env).length > 0 ? { env } : {}),
    config,
    bundle: { projectRoot, rulePackModule: rulePack.path },
  });
  warnAboutGaps(stack, config);
  warnAboutRules(stack, rulePack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { stack, config, rulePack };
}

function definedOnly(env: { account?: string | undefined; region?: string | undefined }): Environment {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
}

/**
 * A stack with no source deploys a poller that fails every tick (`PollConfigError`), firing
 * `FunctionErrors` and `HeartbeatMissing`: refused, unless `sources.allowNone` says it is meant (the
 * poller then completes each tick at once).
 */
function refuseNothingToPoll(config: DeployConfig): void {
  const { orgIds, projectIds, allowNone } = config.sources;
  // Each connection names a source (the deploy configuration checks it).
  if (orgIds.length > 0 || projectIds.length > 0 || config.connections.length > 0 || allowNone) return;
  throw new NothingToPollError(
    [
      'The deploy configuration names no Atlas organization and no project: the deployed poller would have nothing to poll and fail every tick. Set one of these, in the cdk.json context "atlasAuditAlerts" or the file given with --context config=FILE (as in infra/examples/config.example.yaml):',
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
function warnAboutRules(stack: AuditAlertsStack, rulePack: RulePackModule): void {
  const annotations = Annotations.of(stack);
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

function warnAboutGaps(stack: AuditAlertsStack, config: DeployConfig): void {
  const annotations = Annotations.of(stack);
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
