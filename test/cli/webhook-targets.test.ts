import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationPointsAt } from '../../cli/webhook-apply.js';
import { receiverUrls } from '../../cli/webhook-targets.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webhook-targets-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function outputsFile(name: string, content: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
}

describe('receiverUrls', () => {
  it('gives another connection the function URL with its name as the path, as the stack does', async () => {
    // Act
    const urls = await receiverUrls({ url: 'https://abc.lambda-url.eu-west-1.on.aws/', cwd: dir }, [
      'default',
      'prod-eu',
    ]);

    // Assess
    expect(Object.fromEntries(urls)).toEqual({
      default: 'https://abc.lambda-url.eu-west-1.on.aws/',
      'prod-eu': 'https://abc.lambda-url.eu-west-1.on.aws/prod-eu',
    });
  });

  it('reads each connection’s PushWebhookUrl output of the named stack', async () => {
    // Prepare
    const file = await outputsFile(
      'two.json',
      JSON.stringify({
        Other: { PushWebhookUrl: 'https://other.example.com/' },
        AtlasAuditAlerts: {
          PushWebhookUrl: 'https://abc.lambda-url.eu-west-1.on.aws/',
          PushWebhookUrlProdEu: 'https://abc.lambda-url.eu-west-1.on.aws/prod-eu',
        },
      }),
    );

    // Act
    const urls = await receiverUrls({ outputsFile: file, stack: 'AtlasAuditAlerts', cwd: dir }, [
      'default',
      'prod-eu',
    ]);
    const unnamed = receiverUrls({ outputsFile: file, cwd: dir }, ['default']);

    // Assess
    expect(urls.get('prod-eu')).toBe('https://abc.lambda-url.eu-west-1.on.aws/prod-eu');
    await expect(unnamed).rejects.toThrow('holds 2 stacks (Other, AtlasAuditAlerts): name one with --stack');
  });

  it('refuses a file that is not what cdk deploy writes, a missing output and a URL Atlas must not post to', async () => {
    // Prepare
    const garbage = await outputsFile('garbage.json', '{"AtlasAuditAlerts": ');
    const list = await outputsFile('list.json', '[1, 2]');
    const noPush = await outputsFile(
      'no-push.json',
      JSON.stringify({ AtlasAuditAlerts: { StateTableName: 't' } }),
    );

    // Act
    const results = await Promise.allSettled([
      receiverUrls({ outputsFile: garbage, cwd: dir }, ['default']),
      receiverUrls({ outputsFile: list, cwd: dir }, ['default']),
      receiverUrls({ outputsFile: noPush, cwd: dir }, ['default']),
      receiverUrls({ url: 'http://hooks.example.com/', cwd: dir }, ['default']),
      receiverUrls({ url: 'not a url', cwd: dir }, ['default']),
      receiverUrls({ cwd: dir }, ['default']),
    ]);

    // Assess
    const messages = results.map((result) =>
      result.status === 'rejected' ? String(result.reason.message) : 'ok',
    );
    expect(messages[0]).toContain('cannot read it as JSON');
    expect(messages[1]).toContain('expected the {stack: {output: value}} object');
    expect(messages[2]).toContain('has no output PushWebhookUrl: deploy with push.enabled');
    expect(messages[3]).toContain('must be an https:// URL');
    expect(messages[4]).toContain('is not a URL');
    expect(messages[5]).toContain('--url URL');
  });
});

describe('integrationPointsAt', () => {
  it('matches the URL Atlas shows redacted by its visible part, and nothing else', () => {
    // Act and assess
    expect(
      integrationPointsAt(
        'https://abc.lambda-url.eu-west-1.on.aws/****',
        'https://abc.lambda-url.eu-west-1.on.aws/',
      ),
    ).toBe(true);
    expect(integrationPointsAt('https://abc.example.com/x', 'https://abc.example.com/x')).toBe(true);
    expect(integrationPointsAt('https://other.example.com/****', 'https://abc.example.com/')).toBe(false);
    expect(integrationPointsAt('****', 'https://abc.example.com/')).toBe(false);
    expect(integrationPointsAt(undefined, 'https://abc.example.com/')).toBe(false);
  });
});
