import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { type AuditAlertsDeployment, addAuditAlertsStack } from '../../../infra/audit-alerts-app.js';
import { DEPLOY_CONFIG_CONTEXT_KEY, type DeployConfigInput } from '../../../infra/config.js';
import { cdkJsonContext, PROJECT_ROOT, type TestWorkspace } from './workspace.js';

export interface SynthesizeOptions {
  workspace: TestWorkspace;
  /** The deploy settings, laid over nothing: the test's own, not cdk.json's defaults. */
  settings: DeployConfigInput;
  /** Extra context, such as `config` for a configuration file. */
  context?: Record<string, unknown>;
  /** Bundle the poller for real (slow); the template tests skip it. */
  bundle?: boolean;
  /** A name for the cloud assembly directory, unique within the workspace. */
  name: string;
}

export interface SynthesizedDeployment extends AuditAlertsDeployment {
  app: App;
  outdir: string;
  template: Template;
}

/**
 * Builds the app as `infra/app.ts` does, with the project's feature flags, and synthesises it (which
 * runs cdk-nag and CloudFormation's own checks).
 *
 * @example
 * ```ts
 * const { template } = await synthesizeDeployment({ workspace, settings, name: 'default' });
 * ```
 */
export async function synthesizeDeployment({
  workspace,
  settings,
  context = {},
  bundle = false,
  name,
}: SynthesizeOptions): Promise<SynthesizedDeployment> {
  const outdir = join(workspace.directory, name);
  const app = new App({
    outdir,
    context: {
      ...cdkJsonContext(),
      [DEPLOY_CONFIG_CONTEXT_KEY]: settings,
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
  });
  const deployment = addAuditAlertsStack({ app, projectRoot: PROJECT_ROOT });
  const template = Template.fromStack(deployment.stack);
  return { ...deployment, app, outdir, template };
}
