import { type App, type Environment, Fn, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AtlasAuditAlerts } from './atlas-audit-alerts.js';
import { DEPLOY_CONFIG_CONTEXT_KEY, DEPLOY_CONFIG_FILE_CONTEXT_KEY, type DeployConfig } from './config.js';
import { resolveDeployConfig } from './config-source.js';
import type { RulePackFile } from './rule-pack-file.js';

export interface AddAuditAlertsStackOptions {
  app: App;
  /** The directory holding `cdk.json`: the configuration file and rule layers are relative to it. */
  projectRoot: string;
  /** The account and region the CLI resolved, used when the configuration does not pin them. */
  defaultEnv?: Environment | undefined;
}

export interface AuditAlertsDeployment {
  stack: AuditAlertsStack;
  construct: AtlasAuditAlerts;
  config: DeployConfig;
  rulePack: RulePackFile;
}

/**
 * The construct's id in this repository's stack. `Default` is left out of the logical ids CloudFormation
 * sees, so the resources of a stack deployed before the construct existed keep theirs: the table and the
 * secrets are not replaced.
 */
export const CONSTRUCT_ID = 'Default';

/**
 * The stack this repository's app deploys the construct in: a plain stack whose two availability zones
 * are chosen by CloudFormation (`Fn::GetAZs`) even when it is pinned to an account and region, so a
 * created VPC needs no lookup and `cdk synth` works without AWS credentials. (A stack of yours may look
 * them up instead, as CDK stacks do by default.)
 */
export class AuditAlertsStack extends Stack {
  constructor(scope: App, id: string, props: StackProps) {
    super(scope, id, props);
  }

  override get availabilityZones(): string[] {
    return [Fn.select(0, Fn.getAzs()), Fn.select(1, Fn.getAzs())];
  }
}

/**
 * This repository's app, as a user's would be: reads the deploy configuration from the app's context
 * (`cdk.json` and `--context config=FILE`), puts an {@link AtlasAuditAlerts} construct in a stack named
 * `stackName`, and runs cdk-nag's AwsSolutions checks on the whole app at synth.
 *
 * @throws {DeployConfigError | DeployConfigFileError} when the configuration is invalid or unreadable.
 * @throws {NothingToPollError | RuleLoadError | RulePackTooLargeError | PollerEnvironmentTooLargeError}
 *   as the construct does.
 * @example
 * ```ts
 * const app = new App();
 * addAuditAlertsStack({ app, projectRoot: process.cwd() });
 * app.synth();
 * ```
 */
export function addAuditAlertsStack({
  app,
  projectRoot,
  defaultEnv,
}: AddAuditAlertsStackOptions): AuditAlertsDeployment {
  const {
    stackName,
    env: pinned,
    ...settings
  } = resolveDeployConfig({
    context: app.node.tryGetContext(DEPLOY_CONFIG_CONTEXT_KEY),
    configFile: app.node.tryGetContext(DEPLOY_CONFIG_FILE_CONTEXT_KEY),
    projectRoot,
  });
  const env = definedOnly({ ...defaultEnv, ...pinned });
  const stack = new AuditAlertsStack(app, stackName, {
    description: 'atlas-audit-alerts: security alerts from the MongoDB Atlas activity feed',
    ...(Object.keys(env).length > 0 ? { env } : {}),
  });
  const construct = new AtlasAuditAlerts(stack, CONSTRUCT_ID, { ...settings, baseDirectory: projectRoot });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { stack, construct, config: construct.config, rulePack: construct.rulePack };
}

function definedOnly(env: { account?: string | undefined; region?: string | undefined }): Environment {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
}
