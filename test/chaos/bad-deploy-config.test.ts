import { afterAll, describe, expect, it } from 'vitest';
import { parseDeployConfig } from '../../infra/config.js';
import { resolveDeployConfig } from '../../infra/config-source.js';
import { DeployConfigError, DeployConfigFileError, type DeployConfigProblem } from '../../infra/errors.js';
import { createTestWorkspace } from '../infra/support/workspace.js';

/**
 * Malformed deploy configurations, one per row, each with the setting it names and its message.
 * test/infra/config.test.ts covers the others (a batch of wrong values listed together, unknown
 * settings, contradictory settings, the schedule cap, a YAML syntax error, an unreadable file); none
 * is repeated here.
 */
interface BadSettings {
  name: string;
  input: unknown;
  problem: DeployConfigProblem;
}

const ORG_ID = '5f4e3d2c1b0a998877665544';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:atlas-AbCdEf';

const BAD_SETTINGS: readonly BadSettings[] = [
  {
    name: 'a list instead of a mapping of settings',
    input: [{ sources: { orgIds: [ORG_ID] } }],
    problem: {
      path: '',
      message: 'must be a mapping of settings (such as sources, alerts and timing), found a list',
    },
  },
  {
    name: 'a bare string',
    input: 'sources',
    problem: {
      path: '',
      message:
        'must be a mapping of settings (such as sources, alerts and timing), found the string "sources"',
    },
  },
  {
    name: 'a section set to null',
    input: { sources: null },
    problem: { path: 'sources', message: 'expected a mapping (key: value), found null' },
  },
  {
    name: 'an account id of 5 digits',
    input: { env: { account: '12345' } },
    problem: { path: 'env.account', message: 'must be a 12-digit AWS account id' },
  },
  {
    name: 'a region in capitals',
    input: { env: { region: 'EU-WEST-1' } },
    problem: { path: 'env.region', message: 'must be an AWS region such as eu-west-1' },
  },
  {
    name: 'an ftp base URL',
    input: { atlas: { baseUrl: 'ftp://cloud.mongodb.com' } },
    problem: {
      path: 'atlas.baseUrl',
      message:
        'must be an http(s) URL: https://cloud.mongodb.com, or your Ops Manager such as https://opsmanager.example.com:8443',
    },
  },
  {
    name: 'a flavour in other capitals',
    input: { atlas: { flavor: 'Atlas-V2' } },
    problem: {
      path: 'atlas.flavor',
      message: '"Atlas-V2" is not allowed here: use one of "ops-manager", "atlas-v1", "atlas-v2"',
    },
  },
  {
    name: 'one org id given as a string',
    input: { sources: { orgIds: ORG_ID } },
    problem: {
      path: 'sources.orgIds',
      message: 'expected a list, found the string "5f4e3d2c1b0a998877665544"',
    },
  },
  {
    name: 'a project id in capitals',
    input: { sources: { projectIds: [ORG_ID.toUpperCase()] } },
    problem: {
      path: 'sources.projectIds[0]',
      message: 'must be a 24-character hexadecimal Atlas id, such as 5f4e3d2c1b0a998877665544',
    },
  },
  {
    name: 'an overlap of more than a day',
    input: { timing: { overlapSeconds: 100_000 } },
    problem: { path: 'timing.overlapSeconds', message: 'must be at most 86400 seconds' },
  },
  {
    name: 'a backlog window of 10 seconds',
    input: { timing: { maxWindowSeconds: 10 } },
    problem: { path: 'timing.maxWindowSeconds', message: 'must be at least 60 seconds' },
  },
  {
    name: 'an inventory every 30 seconds',
    input: { timing: { inventoryIntervalSeconds: 30 } },
    problem: { path: 'timing.inventoryIntervalSeconds', message: 'must be at least 60 seconds' },
  },
  {
    name: 'a schedule of two and a half minutes',
    input: { timing: { scheduleMinutes: 2.5 } },
    problem: { path: 'timing.scheduleMinutes', message: 'expected an integer, found the number 2.5' },
  },
  {
    name: 'a concurrency given as text',
    input: { concurrency: '4' },
    problem: { path: 'concurrency', message: 'expected a number, found the string "4"' },
  },
  {
    name: 'a concurrency of 33',
    input: { concurrency: 33 },
    problem: { path: 'concurrency', message: 'must be at most 32' },
  },
  {
    name: 'one email address given as a string',
    input: { alerts: { emails: 'secops@example.com' } },
    problem: { path: 'alerts.emails', message: 'expected a list, found the string "secops@example.com"' },
  },
  {
    name: 'an email address listed twice in other capitals',
    input: { alerts: { emails: ['SecOps@example.com', 'secops@example.com'] } },
    problem: { path: 'alerts.emails[1]', message: 'secops@example.com is listed twice' },
  },
  {
    name: 'a Slack channel without its id',
    input: { alerts: { slack: { workspaceId: 'T012AB3CD' } } },
    problem: {
      path: 'alerts.slack.channelId',
      message: 'missing required key "channelId"',
    },
  },
  {
    name: 'a Slack workspace id in lower case',
    input: { alerts: { slack: { workspaceId: 't012ab3cd', channelId: 'C0123ABCDEF' } } },
    problem: {
      path: 'alerts.slack.workspaceId',
      message: 'must be a Slack workspace id such as T012AB3CD (the AWS Chatbot console shows it)',
    },
  },
  {
    name: 'a Slack channel given by its name',
    input: { alerts: { slack: { workspaceId: 'T012AB3CD', channelId: '#security' } } },
    problem: {
      path: 'alerts.slack.channelId',
      message: 'must be a Slack channel id such as C0123ABCDEF (see the channel details)',
    },
  },
  {
    name: 'a lag alarm of one minute',
    input: { operations: { watermarkLagAlarmMinutes: 1 } },
    problem: { path: 'operations.watermarkLagAlarmMinutes', message: 'must be at least 2 minutes' },
  },
  {
    name: 'no rule directory',
    input: { rules: { directories: [] } },
    problem: { path: 'rules.directories', message: 'must name at least one directory' },
  },
  {
    name: 'an empty rule directory name',
    input: { rules: { directories: [''] } },
    problem: { path: 'rules.directories[0]', message: 'cannot be empty' },
  },
  {
    name: 'a KMS key given by its alias',
    input: { credentials: { secretArn: SECRET_ARN, kmsKeyArn: 'alias/atlas' } },
    problem: { path: 'credentials.kmsKeyArn', message: 'must be the ARN of a KMS key' },
  },
  {
    name: 'a removal policy CloudFormation has no word for here',
    input: { table: { removalPolicy: 'snapshot' } },
    problem: {
      path: 'table.removalPolicy',
      message: '"snapshot" is not allowed here: use one of "retain", "destroy"',
    },
  },
  {
    name: 'a poller timeout over Lambda’s 15 minutes',
    input: { poller: { timeoutSeconds: 901 } },
    problem: { path: 'poller.timeoutSeconds', message: 'must be at most 900 seconds' },
  },
  {
    name: 'a log level Powertools does not have',
    input: { poller: { logLevel: 'TRACE' } },
    problem: {
      path: 'poller.logLevel',
      message: '"TRACE" is not allowed here: use one of "DEBUG", "INFO", "WARN", "ERROR"',
    },
  },
  {
    name: 'yes for a boolean',
    input: { poller: { reservedConcurrency: 'yes' } },
    problem: {
      path: 'poller.reservedConcurrency',
      message: 'expected true or false, found the string "yes"',
    },
  },
  {
    name: 'a stack name of 200 characters',
    input: { stackName: 'A'.repeat(200) },
    problem: {
      path: 'stackName',
      message: 'must start with a letter and hold only letters, digits and hyphens (at most 101 characters)',
    },
  },
  {
    name: 'a __proto__ key',
    input: JSON.parse('{"__proto__": {"polluted": true}}'),
    problem: {
      path: '__proto__',
      message: 'is not a known setting (check its spelling against infra/examples/config.example.yaml)',
    },
  },
];

/** Malformed configuration files, each with the message it must give (`<file>` stands for its path). */
interface BadFile {
  name: string;
  file: string;
  text: string;
  error: typeof DeployConfigError | typeof DeployConfigFileError;
  message: string;
}

const BAD_FILES: readonly BadFile[] = [
  {
    name: 'tabs for indentation',
    file: 'tabs.yaml',
    text: 'alerts:\n\temails: []\n',
    error: DeployConfigFileError,
    message:
      'The configuration file <file> is not valid YAML:\n<file>:2:1: a tab indents this line: YAML indents with spaces only; replace the tab with spaces [YAML_SYNTAX]\n 2 | \temails: []\n   | ^',
  },
  {
    name: 'a key given twice',
    file: 'twice.yaml',
    text: 'alerts:\n  emails: []\n  emails: [a@example.com]\n',
    error: DeployConfigFileError,
    message:
      'The configuration file <file> is not valid YAML:\n<file>:3:3: the key "emails" appears twice in the same mapping: keep one, and merge what the two say [YAML_SYNTAX]',
  },
  {
    name: 'two YAML documents',
    file: 'two.yaml',
    text: 'concurrency: 2\n---\nconcurrency: 3\n',
    error: DeployConfigFileError,
    message:
      'The configuration file <file> is not valid YAML:\n<file>:2:1: a second YAML document starts here (a "---" line): a configuration file holds one document [YAML_SYNTAX]',
  },
  {
    name: 'an alias to no anchor',
    file: 'alias.yaml',
    text: 'alerts:\n  emails: *team\n',
    error: DeployConfigFileError,
    message:
      'The configuration file <file> is not valid YAML: Unresolved alias (the anchor must be set before the alias): team',
  },
  {
    name: 'an alias bomb',
    file: 'bomb.yaml',
    text: [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]',
    ].join('\n'),
    error: DeployConfigFileError,
    message:
      'The configuration file <file> is not valid YAML: Excessive alias count indicates a resource exhaustion attack',
  },
  {
    name: 'lists nested thousands of levels deep',
    file: 'deep.yaml',
    text: `alerts: ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`,
    error: DeployConfigFileError,
    message:
      'The configuration file <file> nests lists or mappings more than 100 levels deep (at <file>:1:109): a configuration needs a few levels only',
  },
  {
    name: 'a list for a whole YAML file',
    file: 'list.yaml',
    text: '- sources\n- alerts\n',
    error: DeployConfigError,
    message: '  - (root): must be a mapping of settings (such as sources, alerts and timing), found a list',
  },
  {
    name: 'a JSON file cut short',
    file: 'cut.json',
    text: '{\n  "alerts": {\n    "emails": [}\n',
    error: DeployConfigFileError,
    message: 'The configuration file <file> is not valid JSON:\n  - <file>:3:16: ',
  },
  {
    name: 'a JSON file with a trailing comma',
    file: 'comma.json',
    text: '{\n  "concurrency": 2,\n}\n',
    error: DeployConfigFileError,
    message: 'The configuration file <file> is not valid JSON:\n  - <file>:3:1: ',
  },
  {
    name: 'a JSON file holding a list',
    file: 'list.json',
    text: '[{"concurrency": 2}]',
    error: DeployConfigError,
    message: '  - (root): must be a mapping of settings (such as sources, alerts and timing), found a list',
  },
];

function problemsOf(input: unknown): readonly DeployConfigProblem[] {
  try {
    parseDeployConfig({ input, origin: 'test settings' });
  } catch (error) {
    expect(error).toBeInstanceOf(DeployConfigError);
    return (error as DeployConfigError).problems;
  }
  expect.fail('the configuration was accepted');
}

describe('parseDeployConfig on malformed settings', () => {
  it.each(BAD_SETTINGS)('refuses $name, naming the setting', (bad) => {
    // Prepare: the row.

    // Act
    const problems = problemsOf(bad.input);

    // Assess
    expect(problems).toEqual([bad.problem]);
  });
});

describe('resolveDeployConfig on malformed files', () => {
  const workspace = createTestWorkspace();
  afterAll(() => workspace.remove());

  it.each(BAD_FILES)('refuses $name, naming the file and the spot', (bad) => {
    // Prepare
    const path = workspace.write(bad.file, bad.text);

    // Act
    const resolve = (): unknown =>
      resolveDeployConfig({ context: {}, configFile: path, projectRoot: workspace.directory });

    // Assess
    expect(resolve).toThrow(bad.error);
    expect(resolve).toThrow(bad.message.replaceAll('<file>', path));
  });

  it('refuses a command-line context value that is a JSON list', () => {
    const resolve = (): unknown => resolveDeployConfig({ context: '[1]', projectRoot: workspace.directory });

    expect(resolve).toThrow(DeployConfigError);
    expect(resolve).toThrow('(root): must be a mapping of settings');
  });

  it('covers at least 30 kinds of malformed configuration here', () => {
    expect(BAD_SETTINGS.length + BAD_FILES.length).toBeGreaterThanOrEqual(30);
  });
});
