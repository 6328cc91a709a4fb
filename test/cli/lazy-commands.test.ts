import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../cli/bin.mjs', import.meta.url));

/** A module hook that writes every module the process resolves to the file MODULES_OUT names. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.MODULES_OUT, resolved.url + '\\n');
  return resolved;
}
`;

let scratch: string;
let register: string;

/** The modules `atlas-audit-alerts ARGS` imports: packages by name, and this project's files. */
async function modulesOf(args: readonly string[]): Promise<{ packages: string[]; files: string[] }> {
  const out = join(scratch, `modules-${args.join('-').replace(/\W+/g, '_')}.txt`);
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, MODULES_OUT: out },
  });
  expect(result.status, result.stderr).toBe(0);
  const urls = [...new Set((await readFile(out, 'utf8')).trim().split('\n'))].filter((url) =>
    url.startsWith('file:'),
  );
  const packages = new Set<string>();
  const files: string[] = [];
  for (const url of urls) {
    const path = fileURLToPath(url);
    const inPackage = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    if (inPackage?.[1] !== undefined) packages.add(inPackage[1]);
    else files.push(path);
  }
  return { packages: [...packages].sort(), files };
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'lazy-commands-'));
  await writeFile(join(scratch, 'hooks.mjs'), HOOKS);
  register = join(scratch, 'register.mjs');
  await writeFile(
    register,
    "import { register } from 'node:module';\nregister(new URL('./hooks.mjs', import.meta.url));\n",
  );
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/**
 * What makes the command start fast: help and the version come from the commands' definitions, and
 * each command imports its work (the rule engine, the poller, the simulator, the AWS SDK and the
 * libraries they need) when it runs. Times belong to `npm run bench:cli-start`; this checks the cause.
 */
describe('atlas-audit-alerts --help and --version', () => {
  it.each(['--help', '--version', 'run --help', 'rules validate --help'])(
    '%s imports commander and the command definitions, none of the work of a command',
    async (line) => {
      const { packages, files } = await modulesOf(line.split(' '));

      // tsx and esbuild run the sources when the build in dist/ is older than them.
      expect(
        packages.filter((name) => !['tsx', 'esbuild', 'get-tsconfig', 'resolve-pkg-maps'].includes(name)),
      ).toEqual(['commander']);
      expect(
        files.filter((file) => /\/cli\/actions\/|\/simulator\/|\/shared\/[a-z-]+\/index\.[jt]s$/.test(file)),
      ).toEqual([]);
      expect(files.some((file) => /\/cli\/commands\/run\.[jt]s$/.test(file))).toBe(true);
    },
    60_000,
  );
});
