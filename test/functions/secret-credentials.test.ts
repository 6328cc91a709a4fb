import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CredentialsSecretError, CredentialsSecretUnreadableError } from '../../functions/poller/errors.js';
import {
  parseCredentialsSecret,
  SecretsManagerCredentials,
  type SecretsManagerCredentialsOptions,
} from '../../functions/poller/secret-credentials.js';
import type { Logger } from '../../shared/logger.js';
import { ManualClock } from '../state/manual-clock.js';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:AtlasCredentials-AbCdEf';
const PRIVATE_KEY = 'fake-private-key-for-tests';
const DIGEST_SECRET = JSON.stringify({ publicKey: 'abcdefgh', privateKey: PRIVATE_KEY });
const secrets = mockClient(SecretsManagerClient);

function accessDenied(): Error {
  return Object.assign(new Error('User is not authorized to perform secretsmanager:GetSecretValue'), {
    name: 'AccessDeniedException',
  });
}

function recordingLogger(): Logger & { warnings: Array<[string, Record<string, unknown> | undefined]> } {
  const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
  return {
    warnings,
    debug: () => {},
    info: () => {},
    warn: (message, attributes) => warnings.push([message, attributes]),
    error: () => {},
  };
}

describe('parseCredentialsSecret', () => {
  it('reads an API key', () => {
    const credentials = parseCredentialsSecret({ secretArn: SECRET_ARN, secretString: DIGEST_SECRET });

    expect(credentials).toEqual({ kind: 'digest', publicKey: 'abcdefgh', privateKey: PRIVATE_KEY });
  });

  it('reads a service account and ignores other keys', () => {
    const secretString = JSON.stringify({
      clientId: 'mdb_sa_id_test',
      clientSecret: 'fake-client-secret-for-tests',
      note: 'rotated in March',
    });

    const credentials = parseCredentialsSecret({ secretArn: SECRET_ARN, secretString });

    expect(credentials).toEqual({
      kind: 'service-account',
      clientId: 'mdb_sa_id_test',
      clientSecret: 'fake-client-secret-for-tests',
    });
  });

  it("says to put the credentials in while the secret holds the stack's placeholder, naming the secret", () => {
    const secretString = JSON.stringify({ replaceMe: 'Xq7RandomPlaceholderValue' });

    const parse = () => parseCredentialsSecret({ secretArn: SECRET_ARN, secretString });

    expect(parse).toThrow(CredentialsSecretError);
    expect(parse).toThrow(
      `The Atlas credentials secret ${SECRET_ARN} still holds the placeholder the stack created: put the credentials in: aws secretsmanager put-secret-value --secret-id ${SECRET_ARN} --secret-string '{"publicKey":"…","privateKey":"…"}' (an API key) or '{"clientId":"…","clientSecret":"…"}' (a service account)`,
    );
    expect(parse).not.toThrow(/Xq7RandomPlaceholderValue/);
  });

  it.each([
    [
      'text that is not JSON',
      `publicKey=abcdefgh privateKey=${PRIVATE_KEY}`,
      /is not JSON: put the credentials in/,
    ],
    ['a JSON array', `["abcdefgh","${PRIVATE_KEY}"]`, /is not a JSON object/],
    [
      'half an API key',
      JSON.stringify({ publicKey: 'abcdefgh', privateKey: '' }),
      /has no usable privateKey/,
    ],
    [
      'half a service account',
      JSON.stringify({ clientSecret: PRIVATE_KEY }),
      /has no usable clientId \(missing, empty or not a string\)/,
    ],
    [
      'both kinds of credentials',
      JSON.stringify({ publicKey: 'a', privateKey: PRIVATE_KEY, clientId: 'b', clientSecret: 'c' }),
      /holds both an API key \(publicKey, privateKey\) and a service account/,
    ],
    [
      'other keys',
      JSON.stringify({ public_key: 'abcdefgh', private_key: PRIVATE_KEY }),
      /holds neither publicKey/,
    ],
  ])('refuses %s without quoting the secret', (_name, secretString, message) => {
    const parse = () => parseCredentialsSecret({ secretArn: SECRET_ARN, secretString });

    expect(parse).toThrow(message);
    expect(parse).not.toThrow(PRIVATE_KEY);
    expect(parse).not.toThrow(/abcdefgh/);
  });

  it('refuses a binary secret', () => {
    const parse = () =>
      parseCredentialsSecret({ secretArn: SECRET_ARN, secretString: undefined, binary: true });

    expect(parse).toThrow(`The Atlas credentials secret ${SECRET_ARN} holds binary data, not JSON text`);
  });
});

describe('SecretsManagerCredentials', () => {
  let clock: ManualClock;

  beforeEach(() => {
    secrets.reset();
    clock = new ManualClock();
  });

  afterEach(() => {
    secrets.reset();
  });

  function provider(options: Partial<SecretsManagerCredentialsOptions> = {}): SecretsManagerCredentials {
    return new SecretsManagerCredentials({
      client: new SecretsManagerClient({ region: 'eu-west-1' }),
      secretArn: SECRET_ARN,
      clock,
      ...options,
    });
  }

  it('reads the secret once per TTL', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: DIGEST_SECRET });
    const credentials = provider({ ttlMs: 300_000 });

    await credentials.credentials();
    clock.advance(299_000);
    const cached = await credentials.credentials();
    clock.advance(1_000);
    await credentials.credentials();

    expect(cached).toEqual({ kind: 'digest', publicKey: 'abcdefgh', privateKey: PRIVATE_KEY });
    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 2);
    expect(secrets).toHaveReceivedCommandWith(GetSecretValueCommand, { SecretId: SECRET_ARN });
  });

  it('reads the secret again after invalidate, and picks up rotated values', async () => {
    secrets
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: DIGEST_SECRET })
      .resolves({ SecretString: JSON.stringify({ publicKey: 'rotatedk', privateKey: 'fake-rotated-key' }) });
    const credentials = provider();
    await credentials.credentials();

    credentials.invalidate();
    const rotated = await credentials.credentials();

    expect(rotated).toEqual({ kind: 'digest', publicKey: 'rotatedk', privateKey: 'fake-rotated-key' });
  });

  it('shares one read between concurrent callers', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: DIGEST_SECRET });
    const credentials = provider();

    await Promise.all([credentials.credentials(), credentials.credentials(), credentials.credentials()]);

    expect(secrets).toHaveReceivedCommandTimes(GetSecretValueCommand, 1);
  });

  it('keeps using the last credentials, with a warning, when Secrets Manager fails later', async () => {
    secrets.on(GetSecretValueCommand).resolvesOnce({ SecretString: DIGEST_SECRET }).rejects(accessDenied());
    const logger = recordingLogger();
    const credentials = provider({ logger });
    await credentials.credentials();
    clock.advance(600_000);

    const reused = await credentials.credentials();

    expect(reused).toEqual({ kind: 'digest', publicKey: 'abcdefgh', privateKey: PRIVATE_KEY });
    expect(logger.warnings).toEqual([
      [
        'Reading the credentials secret failed; using the credentials read before',
        expect.objectContaining({ secretArn: SECRET_ARN, errorCode: 'CREDENTIALS_SECRET_UNREADABLE' }),
      ],
    ]);
    expect(JSON.stringify(logger.warnings)).not.toContain(PRIVATE_KEY);
  });

  it('says what the role needs when it may not read the secret', async () => {
    secrets.on(GetSecretValueCommand).rejects(accessDenied());

    const read = provider().credentials();

    await expect(read).rejects.toThrow(CredentialsSecretUnreadableError);
    await expect(read).rejects.toThrow(
      `Reading the Atlas credentials secret ${SECRET_ARN} failed (AccessDeniedException): the function's role must be allowed secretsmanager:GetSecretValue on it`,
    );
  });

  it('fails on a secret changed to a shape it cannot use, even with good credentials read before', async () => {
    secrets
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: DIGEST_SECRET })
      .resolves({ SecretString: JSON.stringify({ replaceMe: 'placeholder' }) });
    const credentials = provider();
    await credentials.credentials();
    credentials.invalidate();

    await expect(credentials.credentials()).rejects.toThrow(/still holds the placeholder the stack created/);
  });
});
