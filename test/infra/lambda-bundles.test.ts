import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FUNCTION_ROLES,
  LAMBDA_BUILD_INFO,
  LAMBDA_BUNDLES_PATH,
  lambdaBundlesState,
} from '../../infra/lambda-bundles.js';
import { functionCode, prebuiltBundle } from '../../infra/lambda-code.js';

describe('lambdaBundlesState', () => {
  let root: string;
  const startedAt = Date.parse('2026-11-28T01:00:00Z');

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'atlas-audit-alerts-bundles-'));
    mkdirSync(join(root, 'shared'), { recursive: true });
    for (const role of FUNCTION_ROLES) {
      mkdirSync(join(root, LAMBDA_BUNDLES_PATH, role), { recursive: true });
      writeFileSync(join(root, LAMBDA_BUNDLES_PATH, role, 'index.mjs'), 'export {};\n');
    }
    for (const file of ['shared/a.ts', 'shared/b.ts']) {
      writeFileSync(join(root, file), 'export {};\n');
      utimesSync(join(root, file), new Date(startedAt - 60_000), new Date(startedAt - 60_000));
    }
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const record = (inputs: string[]) =>
    writeFileSync(join(root, LAMBDA_BUNDLES_PATH, LAMBDA_BUILD_INFO), JSON.stringify({ startedAt, inputs }));

  it('is missing without a record of a build, or with one that is not', () => {
    expect(lambdaBundlesState(root)).toBe('missing');
    writeFileSync(join(root, LAMBDA_BUNDLES_PATH, LAMBDA_BUILD_INFO), '{"startedAt":"yesterday"}');
    expect(lambdaBundlesState(root)).toBe('missing');
  });

  it('is current while every file the build read is older than its start', () => {
    record(['shared/a.ts', 'shared/b.ts']);

    expect(lambdaBundlesState(root)).toBe('current');
  });

  it('is missing when a function has no bundle, as after a build older than the function', () => {
    record(['shared/a.ts', 'shared/b.ts']);
    rmSync(join(root, LAMBDA_BUNDLES_PATH, 'receiver'), { recursive: true });

    expect(lambdaBundlesState(root)).toBe('missing');
  });

  it('is stale once a file the build read changed, or is gone', () => {
    record(['shared/a.ts', 'shared/b.ts']);
    utimesSync(join(root, 'shared/b.ts'), new Date(startedAt + 1_000), new Date(startedAt + 1_000));
    expect(lambdaBundlesState(root)).toBe('stale');

    record(['shared/a.ts', 'shared/gone.ts']);
    expect(lambdaBundlesState(root)).toBe('stale');
  });
});

describe('functionCode', () => {
  let outdir: string;
  beforeEach(() => {
    outdir = mkdtempSync(join(tmpdir(), 'atlas-audit-alerts-code-'));
  });
  afterEach(() => rmSync(outdir, { recursive: true, force: true }));

  it("assembles a function's code: the prebuilt bundle with its map, and the rule pack beside them", () => {
    const rulePackFile = join(outdir, 'pack.json');
    writeFileSync(rulePackFile, '{"format":1}');

    const folder = functionCode({ role: 'worker', rulePackFile, outputDirectory: join(outdir, 'functions') });

    expect(folder).toBe(join(outdir, 'functions', 'worker'));
    expect(readdirSync(folder).sort()).toEqual(['index.mjs', 'index.mjs.map', 'rule-pack.json']);
    expect(readFileSync(join(folder, 'rule-pack.json'), 'utf8')).toBe('{"format":1}');
    expect(readFileSync(join(folder, 'index.mjs'))).toEqual(
      readFileSync(join(prebuiltBundle('worker'), 'index.mjs')),
    );
  });
});
