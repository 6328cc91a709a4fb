import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledRulePack, RULE_PACK_FILE } from '../../functions/poller/bundled-rule-pack.js';
import { BundledRulePackMissingError } from '../../functions/poller/errors.js';
import {
  AUDIT_LOG_ENTRY,
  DISPATCHER_ENTRY,
  ESM_REQUIRE_BANNER,
  pollerEsbuildOptions,
  RECEIVER_ENTRY,
  WORKER_ENTRY,
} from '../../infra/bundling.js';
import { prebuiltBundle } from '../../infra/lambda-code.js';
import { AUDIT_LOG_CONFIG_ENV } from '../../shared/audit-log/audit-log-runtime.js';
import { FAN_OUT_CONFIG_ENV } from '../../shared/fan-out/fan-out-settings.js';
import { POLLER_CONFIG_ENV } from '../../shared/poll/poller-config.js';
import { PUSH_CONFIG_ENV } from '../../shared/push/push-settings.js';
import { webhookSignature } from '../../shared/push/webhook-signature.js';
import { createStateTable } from '../../shared/state/index.js';
import { alertBody, ORG_ID, PROJECT_ID, WEBHOOK_SECRET } from '../push/support/webhook.js';
import { createDynamoDbLocalClient } from '../support/dynamodb-local.js';
import { dynamoDbLocalEndpoint } from '../support/dynamodb-local-setup.js';
import { synthesizeDeployment } from './support/deployment.js';
import { resolveReferences, resourceOf } from './support/template.js';
import { createTestWorkspace, PROJECT_ROOT, VALID_RULE_FILE } from './support/workspace.js';

interface NodeRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an ES module snippet in a fresh Node process, with only the given environment. */
function runFreshNode(code: string, environment: Record<string, string> = {}): NodeRun {
  const result = spawnSync(process.execPath, ['--input-type=module', '--enable-source-maps', '-e', code], {
    env: { PATH: process.env.PATH ?? '', ...environment },
    encoding: 'utf8',
    timeout: 60_000,
    // A failed import prints the offending line: in a minified bundle, the whole bundle.
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * {@link runFreshNode} without blocking this process, so that servers of the test answer the child's
 * requests meanwhile.
 */
function runFreshNodeAsync(code: string, environment: Record<string, string> = {}): Promise<NodeRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '--enable-source-maps', '-e', code],
      {
        env: { PATH: process.env.PATH ?? '', ...environment },
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

/** A request the stand-in for Secrets Manager and SQS took: its `X-Amz-Target` and JSON body. */
interface AwsCall {
  target: string;
  body: Record<string, unknown>;
}

/**
 * Secrets Manager and SQS for a bundle run in a fresh process, which no client mock reaches: a
 * server on 127.0.0.1 answering the two JSON-protocol calls the receiver makes, `GetSecretValue`
 * with `secret` and `SendMessageBatch` with each entry taken (and the MD5 of its body, which the SQS
 * client checks), and recording both.
 */
async function startAwsStandIn(secret: string) {
  const calls: AwsCall[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      calls.push({ target, body });
      let answer: unknown;
      if (target === 'secretsmanager.GetSecretValue') {
        answer = { ARN: body.SecretId, Name: 'AtlasWebhookSecret', SecretString: secret, VersionId: 'v1' };
      } else if (target === 'AmazonSQS.SendMessageBatch') {
        const entries = body.Entries as Array<{ Id: string; MessageBody: string }>;
        answer = {
          Successful: entries.map((entry) => ({
            Id: entry.Id,
            MessageId: randomUUID(),
            MD5OfMessageBody: createHash('md5').update(entry.MessageBody).digest('hex'),
          })),
          Failed: [],
        };
      } else {
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify({ __type: 'UnknownOperationException', message: target }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('the poller bundle', () => {
  const workspace = createTestWorkspace();
  let rulePackFile: string;
  let deployedBundle: string;
  let pollerEnvironment: Record<string, string>;

  beforeAll(async () => {
    const rules = workspace.write('rules.yaml', VALID_RULE_FILE);
    const deployment = await synthesizeDeployment({
      workspace,
      name: 'bundled',
      bundle: true,
      settings: { sources: { orgIds: ['5f4e3d2c1b0a998877665544'] }, rules: { directories: [rules] } },
    });
    rulePackFile = deployment.rulePack.path;
    const fn = resourceOf(deployment.template, 'AWS::Lambda::Function');
    const assetHash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
    deployedBundle = join(deployment.outdir, `asset.${assetHash}`, 'index.mjs');
    const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
    pollerEnvironment = Object.fromEntries(
      Object.entries(variables).map(([name, value]) => [
        name,
        resolveReferences(value, (reference) =>
          reference.startsWith('State')
            ? 'AtlasAuditAlerts-StateTable-1A2B3C'
            : `arn:aws:sns:eu-west-1:123456789012:${reference}`,
        ),
      ]),
    );
  });
  afterAll(() => workspace.remove());

  it('is the file esbuild builds from the shared options, so the benchmark measures what is deployed', async () => {
    const outdir = join(workspace.directory, 'esbuild');

    await build(pollerEsbuildOptions({ projectRoot: PROJECT_ROOT, outdir }));

    expect(readFileSync(join(outdir, 'index.mjs'), 'utf8')).toBe(readFileSync(deployedBundle, 'utf8'));
  });

  it('is one minified ES module with the require banner, a source map, and the AWS SDK inside', () => {
    const code = readFileSync(deployedBundle, 'utf8');
    const map = JSON.parse(readFileSync(`${deployedBundle}.map`, 'utf8')) as { sources: string[] };
    const packages = new Set(
      map.sources.map((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1]),
    );
    const lines = code.split('\n').length;

    expect(code.startsWith(`${ESM_REQUIRE_BANNER}\n`)).toBe(true);
    expect(code.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map')).toBe(true);
    // Unminified, esbuild writes about 40 characters a line and keeps the sources' names.
    expect(code.length / lines).toBeGreaterThan(1000);
    expect(code).not.toContain('parseCredentialsSecret');
    expect([...packages]).toEqual(
      expect.arrayContaining([
        '@aws-sdk/client-dynamodb',
        '@aws-sdk/client-secrets-manager',
        '@aws-sdk/client-sns',
        '@aws-sdk/credential-provider-node',
        '@aws-lambda-powertools/metrics',
        'undici',
      ]),
    );
    expect(existsSync(join(deployedBundle, '..', 'node_modules'))).toBe(false);
  });

  it('leaves out what only reading rule files needs: the YAML parser and the rule linter', () => {
    const map = JSON.parse(readFileSync(`${deployedBundle}.map`, 'utf8')) as { sources: string[] };

    // The pack arrives validated and serialized; parsing YAML in the function costs bundle and cold start.
    expect(map.sources.filter((source) => source.includes('node_modules/yaml/'))).toEqual([]);
    expect(map.sources.filter((source) => /shared\/rules\/(loader|lint\/)/.test(source))).toEqual([]);
    expect(map.sources.some((source) => source.endsWith('shared/rules/engine.ts'))).toBe(true);
  });

  it("takes only the zod schemas it uses: none of zod's translated messages or JSON Schema conversion", () => {
    const map = JSON.parse(readFileSync(`${deployedBundle}.map`, 'utf8')) as { sources: string[] };
    const zod = map.sources.filter((source) => source.includes('node_modules/zod/'));

    // `import { z } from 'zod'` brings the whole namespace (every locale, ~350 KiB); `import * as z` does not.
    expect(
      zod.filter((source) => /\/locales\/(?!en\.)|\/(json-schema|from-json-schema)\./.test(source)),
    ).toEqual([]);
    expect(zod.some((source) => source.includes('/classic/schemas'))).toBe(true);
  });

  it('imports in a fresh Node process with the configuration the stack gives it', () => {
    const run = runFreshNode(
      `const poller = await import(${JSON.stringify(pathToFileURL(deployedBundle).href)});
       process.stdout.write(typeof poller.handler);`,
      // The handler creates its AWS SDK clients at import; on Node < 22 (this machine, not the Node 24
      // runtime the bundle targets) the SDK warns about the Node version on stderr.
      { ...pollerEnvironment, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    );

    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('function');
    expect(run.status).toBe(0);
    expect(pollerEnvironment[POLLER_CONFIG_ENV]).toContain('"orgIds":["5f4e3d2c1b0a998877665544"]');
  });

  it.each([
    ['dispatcher', DISPATCHER_ENTRY],
    ['worker', WORKER_ENTRY],
  ])('builds the fan-out %s the same way, and it imports in a fresh Node process', async (name, entry) => {
    const outdir = join(workspace.directory, `fan-out-${name}`);
    await build(pollerEsbuildOptions({ projectRoot: PROJECT_ROOT, outdir, entry }));
    copyFileSync(rulePackFile, join(outdir, RULE_PACK_FILE));
    const fanOut = JSON.stringify({
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/AtlasAuditAlerts-Sources.fifo',
      mode: 'on',
      automaticAboveSources: 2_000,
      maxConcurrencyPerOrg: 2,
      schedulePeriodSeconds: 300,
    });

    const run = runFreshNode(
      `const fn = await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)});
       process.stdout.write(typeof fn.handler);`,
      {
        ...pollerEnvironment,
        [FAN_OUT_CONFIG_ENV]: fanOut,
        AWS_REGION: 'eu-west-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    );

    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('function');
  });

  it('builds the audit log reader the same way, with the S3 client, and it imports in a fresh Node process', async () => {
    const outdir = join(workspace.directory, 'audit-log');
    await build(pollerEsbuildOptions({ projectRoot: PROJECT_ROOT, outdir, entry: AUDIT_LOG_ENTRY }));
    copyFileSync(rulePackFile, join(outdir, RULE_PACK_FILE));
    const auditLog = JSON.stringify({
      buckets: [
        {
          bucket: 'atlasauditalerts-auditlogsbucket-1a2b3c4d5e6f',
          connection: 'default',
          exports: [{ groupId: '6a1b2c3d4e5f60718293a4b5', prefix: 'atlas-logs/payments' }],
        },
      ],
    });

    const run = runFreshNode(
      `const fn = await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)});
       process.stdout.write(typeof fn.handler);`,
      {
        ...pollerEnvironment,
        [AUDIT_LOG_CONFIG_ENV]: auditLog,
        AWS_REGION: 'eu-west-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    );
    const map = JSON.parse(readFileSync(join(outdir, 'index.mjs.map'), 'utf8')) as { sources: string[] };

    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('function');
    expect(map.sources.some((source) => source.includes('node_modules/@aws-sdk/client-s3/'))).toBe(true);
  });

  it('builds the push receiver the same way, without Atlas or the rules, and it imports in a fresh Node process', async () => {
    const outdir = join(workspace.directory, 'push-receiver');
    await build(pollerEsbuildOptions({ projectRoot: PROJECT_ROOT, outdir, entry: RECEIVER_ENTRY }));
    const push = JSON.stringify({
      tableName: 'AtlasAuditAlerts-StateTable-1A2B3C',
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/AtlasAuditAlerts-Sources.fifo',
      connections: [
        {
          name: 'default',
          secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasWebhookSecret-AbCdEf',
          sources: { orgIds: ['5f4e3d2c1b0a998877665544'] },
        },
      ],
    });

    const run = runFreshNode(
      `const fn = await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)});
       process.stdout.write(typeof fn.handler);`,
      {
        [PUSH_CONFIG_ENV]: push,
        AWS_REGION: 'eu-west-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    );
    const map = JSON.parse(readFileSync(join(outdir, 'index.mjs.map'), 'utf8')) as { sources: string[] };

    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('function');
    // What reaches Atlas or judges events is not in it: a fault here can never reach either.
    expect(
      map.sources.filter((source) =>
        /node_modules\/undici\/|shared\/(rules\/(engine|rule-compiler|conditions)|atlas\/atlas-client|notify\/)/.test(
          source,
        ),
      ),
    ).toEqual([]);
  });

  it('runs the push receiver bundle on this Node: a signed push queues its project once, a forged one is refused', async () => {
    // Prepare: the bundle, its state table in DynamoDB Local, Secrets Manager and SQS stood in for.
    const outdir = join(workspace.directory, 'push-receiver-run');
    await build(pollerEsbuildOptions({ projectRoot: PROJECT_ROOT, outdir, entry: RECEIVER_ENTRY }));
    const dynamoDbEndpoint = await dynamoDbLocalEndpoint();
    const tableName = `push-bundle-${randomUUID()}`;
    const dynamoDb = createDynamoDbLocalClient(dynamoDbEndpoint);
    await createStateTable({ client: dynamoDb, tableName, timeToLive: false });
    dynamoDb.destroy();
    const aws = await startAwsStandIn(WEBHOOK_SECRET);
    const now = new Date().toISOString();
    const body = JSON.stringify(
      alertBody({ id: randomUUID().replaceAll('-', '').slice(0, 24), created: now, updated: now }),
    );
    const request = (signature: string) => ({
      rawPath: '/',
      requestContext: { http: { method: 'POST' } },
      headers: {
        'content-type': 'application/json',
        'x-mms-event': 'alert.inform',
        'x-mms-signature': signature,
      },
      body,
      isBase64Encoded: false,
    });
    const signed = request(webhookSignature(Buffer.from(body), WEBHOOK_SECRET));
    const forged = request(webhookSignature(Buffer.from(body), 'not-the-webhook-secret-0123456789'));
    const push = JSON.stringify({
      tableName,
      queueUrl: `${aws.url}/123456789012/AtlasAuditAlerts-Sources.fifo`,
      connections: [
        {
          name: 'default',
          secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasWebhookSecret-AbCdEf',
          sources: { orgIds: [ORG_ID], projectIds: [PROJECT_ID] },
        },
      ],
    });

    // Act
    let run: NodeRun;
    try {
      run = await runFreshNodeAsync(
        `const fn = await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)});
         const answers = [];
         for (const request of JSON.parse(process.env.REQUESTS)) answers.push((await fn.handler(request)).statusCode);
         console.log('statuses ' + JSON.stringify(answers));`,
        {
          [PUSH_CONFIG_ENV]: push,
          REQUESTS: JSON.stringify([signed, forged]),
          AWS_REGION: 'eu-west-1',
          AWS_ACCESS_KEY_ID: 'AKIAFAKEFORTESTS0000',
          AWS_SECRET_ACCESS_KEY: 'fake-secret-access-key-for-tests',
          AWS_ENDPOINT_URL_DYNAMODB: dynamoDbEndpoint,
          AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.url,
          AWS_ENDPOINT_URL_SQS: aws.url,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      );
    } finally {
      await aws.close();
    }

    // Assess
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^statuses \[202,401\]$/m);
    expect(aws.calls.map((call) => call.target)).toEqual([
      'secretsmanager.GetSecretValue',
      'AmazonSQS.SendMessageBatch',
    ]);
    const entries = aws.calls[1]?.body.Entries as Array<{ MessageBody: string; MessageGroupId: string }>;
    expect(entries.map((entry) => JSON.parse(entry.MessageBody))).toEqual([
      expect.objectContaining({ kind: 'project', id: PROJECT_ID, push: true }),
    ]);
    expect(entries[0]?.MessageGroupId).toBe(`push:project:${PROJECT_ID}`);
    expect(run.stdout).not.toContain(WEBHOOK_SECRET);
    expect(run.stdout).not.toContain(signed.headers['x-mms-signature']);
  });

  it('is deployed as the prebuilt bundle with its map and the rule pack validated at synth beside it', async () => {
    const folder = join(deployedBundle, '..');
    const outdir = join(workspace.directory, 'rule-pack-entry');
    await build({
      ...pollerEsbuildOptions({ projectRoot: PROJECT_ROOT, outdir }),
      entryPoints: [join(PROJECT_ROOT, 'functions/poller/bundled-rule-pack.ts')],
    });
    copyFileSync(join(folder, RULE_PACK_FILE), join(outdir, RULE_PACK_FILE));

    const run = runFreshNode(
      `const { loadBundledRulePack } = await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)});
       process.stdout.write(loadBundledRulePack().rules.map((rule) => rule.spec.id).join(','));`,
    );

    expect(readdirSync(folder).sort()).toEqual(['index.mjs', 'index.mjs.map', RULE_PACK_FILE]);
    expect(readFileSync(deployedBundle)).toEqual(readFileSync(join(prebuiltBundle('poller'), 'index.mjs')));
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('api-key-created');
  });

  it('says where the rule pack should be when it is not beside the bundle', async () => {
    const outdir = join(workspace.directory, 'rule-pack-missing');
    await build({
      ...pollerEsbuildOptions({ projectRoot: PROJECT_ROOT, outdir }),
      entryPoints: [join(PROJECT_ROOT, 'functions/poller/bundled-rule-pack.ts')],
    });

    const run = runFreshNode(
      `const { loadBundledRulePack } = await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)});
       try { loadBundledRulePack(); } catch (error) { process.stdout.write(error.name + ': ' + error.message); }`,
    );

    expect(run.stdout).toMatch(
      /^BundledRulePackMissingError: No rule pack is deployed with this code \(rule-pack\.json beside it cannot be read: ENOENT\)/,
    );
  });

  describe('createRequire banner', () => {
    // undici, the Atlas client's HTTP stack, ships only CommonJS, which requires Node built-ins.
    const entry = "import { Agent } from 'undici'; export const agent = new Agent();";

    async function bundleUndici(name: string, withBanner: boolean): Promise<string> {
      const outdir = join(workspace.directory, name);
      const {
        entryPoints: _entry,
        banner,
        ...options
      } = pollerEsbuildOptions({ projectRoot: PROJECT_ROOT, outdir });
      await build({
        ...options,
        ...(withBanner ? { banner } : {}),
        stdin: { contents: entry, resolveDir: PROJECT_ROOT, loader: 'ts', sourcefile: 'undici-entry.ts' },
      });
      return pathToFileURL(join(outdir, 'index.mjs')).href;
    }

    it('lets an ES module bundle of CommonJS code require Node built-ins', async () => {
      const bundle = await bundleUndici('undici-with-banner', true);

      const run = runFreshNode(`await import(${JSON.stringify(bundle)}); process.stdout.write('imported');`);

      expect(run.status).toBe(0);
      expect(run.stdout).toBe('imported');
    });

    it('is what stands between the bundle and "Dynamic require" at import', async () => {
      const bundle = await bundleUndici('undici-without-banner', false);

      // The message is caught and written to stdout: Node's report of an uncaught error on stderr
      // quotes the offending line, which in a minified bundle is the whole bundle.
      const run = runFreshNode(
        `try { await import(${JSON.stringify(bundle)}); } catch (error) {
           process.stdout.write(String(error?.message)); process.exitCode = 1; }`,
      );

      expect(run.status, `stderr ends: ${run.stderr.slice(-600)}`).toBe(1);
      expect(run.stdout).toMatch(/^Dynamic require of "node:[a-z_]+" is not supported$/);
    });
  });
});

describe('loadBundledRulePack', () => {
  it('refuses to run outside the code the CDK app assembles', () => {
    const load = () => loadBundledRulePack();

    expect(load).toThrow(BundledRulePackMissingError);
    expect(load).toThrow(/the functions run only from the code `cdk synth` assembles/);
  });
});
