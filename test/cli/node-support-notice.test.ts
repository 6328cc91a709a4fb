import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeSupportNotice } from '../../cli/node-support-notice.js';
import { freePort } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';

/**
 * The AWS SDK decides from `process.version` whether to warn, so each case runs in a child process
 * whose `process.version` is set first: the same cases hold whichever Node runs the suite. The SDK
 * clients are the real ones; making a client is what warns, so no request is sent.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));
const NOTICE = pathToFileURL(
  fileURLToPath(new URL('../../cli/node-support-notice.ts', import.meta.url)),
).href;
const NOTE = /^atlas-audit-alerts: note: /;

/** The environment of the suite, without anything that already silences warnings. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  if (extra.NODE_NO_WARNINGS === undefined) delete env.NODE_NO_WARNINGS;
  return env;
}

function pretendVersion(version: string): string {
  return `data:text/javascript,Object.defineProperty(process, 'version', { value: '${version}' })`;
}

/** Installs the filter, makes three SDK clients and emits a warning of another kind. */
function makeClients(version: string, env: Record<string, string> = {}): string {
  const script = [
    `const { quietNodeSupportWarning } = await import(${JSON.stringify(NOTICE)});`,
    'quietNodeSupportWarning({ write: (text) => process.stderr.write(text) });',
    "const { SNSClient } = await import('@aws-sdk/client-sns');",
    "const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');",
    "for (const client of [new SNSClient({ region: 'eu-west-1' }), new SNSClient({ region: 'eu-west-1' }), new DynamoDBClient({ region: 'eu-west-1' })]) client.destroy();",
    "process.emitWarning('a warning of its own', 'OtherWarning');",
  ].join('\n');
  const result = spawnSync(
    process.execPath,
    ['--import', pretendVersion(version), '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: ROOT, env: cleanEnv(env), encoding: 'utf8' },
  );
  expect(result.status, result.stderr).toBe(0);
  return result.stderr;
}

function notes(stderr: string): string[] {
  return stderr.split('\n').filter((line) => NOTE.test(line));
}

describe('quietNodeSupportWarning', () => {
  it("prints the SDK's Node version warning as one plain line, once, on a Node the SDK will drop", () => {
    const stderr = makeClients('v20.20.2');

    expect(notes(stderr)).toHaveLength(1);
    expect(notes(stderr)[0]).toMatch(
      /^atlas-audit-alerts: note: Node v20\.20\.2 works for now, but AWS SDK releases published after .+ need Node \d+ or later$/,
    );
    expect(stderr).not.toContain('NodeVersionSupportWarning');
    expect(stderr).toContain('OtherWarning: a warning of its own');
  });

  it('prints nothing about the Node version on a Node the SDK supports, and lets other warnings through', () => {
    const stderr = makeClients('v24.11.0');

    expect(notes(stderr)).toEqual([]);
    expect(stderr).not.toContain('NodeVersionSupportWarning');
    expect(stderr).toContain('OtherWarning: a warning of its own');
  });

  it('prints nothing when NODE_NO_WARNINGS=1 silences warnings', () => {
    const stderr = makeClients('v20.20.2', { NODE_NO_WARNINGS: '1' });

    expect(stderr).toBe('');
  });
});

describe('nodeSupportNotice', () => {
  it("keeps the SDK's own words, on one line, when its text has another shape", () => {
    const line = nodeSupportNotice('NodeVersionSupportWarning: Node 22 support\nends   soon.', 'v22.1.0');

    expect(line).toBe('atlas-audit-alerts: note: Node 22 support ends soon.');
  });
});

describe('the atlas-audit-alerts command', () => {
  it("turns the SDK's warning into one line when a command makes an AWS client", async () => {
    const endpoint = await dynamoDbLocalEndpoint();
    // Nothing listens there: the command never reaches the internet, whatever it asks first.
    const atlas = `http://127.0.0.1:${await freePort()}`;
    const args = [
      'run',
      ...['--base-url', atlas, '--allow-insecure-http', '--org', '64b5c9e2f1a3d40012ab3c02'],
      ...['--state', 'dynamodb:no-such-table'],
    ];
    const env = cleanEnv({
      MONGODB_ATLAS_PUBLIC_API_KEY: 'fakepub1',
      MONGODB_ATLAS_PRIVATE_API_KEY: 'fake-private-key-for-tests',
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'fakeAccessKeyForTests',
      AWS_SECRET_ACCESS_KEY: 'fake-secret-access-key-for-tests',
    });

    const result = spawnSync(process.execPath, ['--import', pretendVersion('v20.20.2'), BIN, ...args], {
      env,
      encoding: 'utf8',
    });

    expect(result.stderr).toContain('state dynamodb:no-such-table');
    expect(notes(result.stderr)).toHaveLength(1);
    expect(result.stderr).not.toContain('NodeVersionSupportWarning');
  });
});
