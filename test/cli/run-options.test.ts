import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunSettings } from '../../cli/run-options.js';

const ORG = '5f4e3d2c1b0a998877665544';
const PROJECT = '5f4e3d2c1b0a998877665545';
const ENV = { MONGODB_ATLAS_PUBLIC_API_KEY: 'abcdefgh', MONGODB_ATLAS_PRIVATE_API_KEY: 'fake-private-key' };

describe('resolveRunSettings', () => {
  let folder: string;
  let config: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'run-options-'));
    config = join(folder, 'run.yaml');
    await writeFile(
      config,
      ['sources:', `  orgIds: [${ORG}]`, '  allProjectsOfOrgs: true', '  accessHistory: true', ''].join('\n'),
    );
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('keeps the source settings of the config file that no flag sets, with the flags on top', async () => {
    // Act
    const fileOnly = await resolveRunSettings({
      options: { config },
      flavorGiven: false,
      env: ENV,
      cwd: folder,
    });
    const withFlags = await resolveRunSettings({
      options: { config, project: [PROJECT] },
      flavorGiven: false,
      env: ENV,
      cwd: folder,
    });

    // Assess
    expect(fileOnly.config.sources).toMatchObject({
      orgIds: [ORG],
      allProjectsOfOrgs: true,
      accessHistory: true,
    });
    expect(withFlags.config.sources).toMatchObject({
      orgIds: [ORG],
      projectIds: [PROJECT],
      accessHistory: true,
    });
    expect(withFlags.connections[0]?.connection.sources.accessHistory).toBe(true);
  });
});
