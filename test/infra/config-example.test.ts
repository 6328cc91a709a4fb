import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CDK_APP_TIMEOUT_MS, runCdkApp } from './support/cdk-app.js';
import { cdkJsonContext, createTestWorkspace, PROJECT_ROOT } from './support/workspace.js';

const EXAMPLE = 'infra/examples/config.example.yaml';
/** The org id the example ships with, and the one a user would put in its place. */
const SHIPPED_ORG_ID = '5f4e3d2c1b0a998877665544';
const USER_ORG_ID = '6a1b2c3d4e5f60718293a4b5';

interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

/**
 * The deploy guide's step 2: copy the example and change nothing but the org id. Its synth, offline, is
 * what `cdk deploy` runs first; a Slack block with placeholder ids would pass synth and fail the
 * deploy, so the copy must name no Slack workspace until step 7.
 */
describe('the example deploy configuration, copied as the deploy guide says', () => {
  const workspace = createTestWorkspace();
  let run: { status: number | null; stderr: string };
  let resources: TemplateResource[];

  beforeAll(() => {
    const example = readFileSync(join(PROJECT_ROOT, EXAMPLE), 'utf8');
    const copy = workspace.write('prod.yaml', example.replace(SHIPPED_ORG_ID, USER_ORG_ID));
    const outdir = join(workspace.directory, 'out');
    run = runCdkApp({ ...cdkJsonContext(), config: copy }, outdir);
    const template = JSON.parse(readFileSync(join(outdir, 'AtlasAuditAlerts.template.json'), 'utf8')) as {
      Resources: Record<string, TemplateResource>;
    };
    resources = Object.values(template.Resources);
  }, CDK_APP_TIMEOUT_MS);
  afterAll(() => workspace.remove());

  it('holds the org id in one place, so that one edit makes it the user’s', () => {
    const example = readFileSync(join(PROJECT_ROOT, EXAMPLE), 'utf8');

    expect(example.split(SHIPPED_ORG_ID)).toHaveLength(2);
  });

  it('synthesizes offline with no warning, no error and no cdk-nag finding', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('creates no Slack channel, which would fail the deploy before the workspace is authorised', () => {
    expect(resources.filter((resource) => resource.Type.startsWith('AWS::Chatbot::'))).toEqual([]);
  });

  it('polls the org put in its place and emails the example addresses', () => {
    const functions = resources.filter((resource) => resource.Type === 'AWS::Lambda::Function');
    const subscriptions = resources
      .filter((resource) => resource.Type === 'AWS::SNS::Subscription')
      .map((resource) => resource.Properties?.Endpoint);

    expect(JSON.stringify(functions)).toContain(USER_ORG_ID);
    expect(JSON.stringify(functions)).not.toContain(SHIPPED_ORG_ID);
    expect(subscriptions).toEqual(expect.arrayContaining(['secops@example.com', 'platform@example.com']));
  });

  it('reserves one execution for the poller, as the guide warns', () => {
    const reserved = resources.filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::Function' &&
        resource.Properties?.ReservedConcurrentExecutions !== undefined,
    );

    expect(reserved.map((resource) => resource.Properties?.ReservedConcurrentExecutions)).toEqual([1]);
  });
});
