import {
  type AtlasAnswer,
  AtlasAuthError,
  type AtlasClient,
  AtlasError,
  AtlasForbiddenError,
  AtlasNotFoundError,
  AtlasVersionError,
  parseServerDate,
} from '../shared/atlas/index.js';
import { mapWithConcurrency } from '../shared/bounded-concurrency.js';
import { cleanAtlasName } from '../shared/notify/alert-context.js';
import type { PollerConfig } from '../shared/poll/index.js';
import { isOpenToInternet } from '../shared/poll/inventory-findings.js';
import { OWNER_ROLE_NAMES } from '../shared/rules/index.js';
import { checkAccessHistory } from './access-history-check.js';
import {
  ATLAS_ROLE_REQUIREMENTS,
  type AtlasCallName,
  type AtlasRoleRequirement,
} from './atlas-role-requirements.js';
import { counted } from './plural.js';

/** How a check came out. `warn` never fails the command; `skip` is a check an earlier failure made moot. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One line of the preflight. */
export interface CheckResult {
  /** `atlas`, `credentials`, `egress`, `access`, `privilege`, `clock`; `audit-log` for an export's bucket. */
  readonly check: 'atlas' | 'credentials' | 'egress' | 'access' | 'privilege' | 'clock' | 'audit-log';
  readonly status: CheckStatus;
  /** What was checked: `atlas-v2 API`, `org 5f4e… events`... */
  readonly subject: string;
  /** What was found, and on a failure what to do. */
  readonly message: string;
  /** The role the call needs (access checks). */
  readonly role?: string;
  /** The call made (access checks), with its placeholders. */
  readonly call?: string;
  /** The address Atlas saw and refused (egress). */
  readonly address?: string;
  /** Local clock minus Atlas's, in milliseconds (clock). */
  readonly skewMs?: number;
  /** A failure's HTTP status, when Atlas answered one (401, 403, 404, 5xx). */
  readonly httpStatus?: number;
  /** A failure's error code (`ATLAS_NETWORK`, `ATLAS_VERSION`...), as the poller's logs name it. */
  readonly errorCode?: string;
  /** The connection checked, when the configuration has more than the connection `default`. */
  readonly connection?: string;
}

/** The failure fields of a result, from the error that failed it. */
function failureOf(error: unknown): Pick<CheckResult, 'httpStatus' | 'errorCode'> {
  if (!(error instanceof AtlasError)) return {};
  return { ...(error.status === undefined ? {} : { httpStatus: error.status }), errorCode: error.code };
}

/** Options of {@link runPreflight}. */
export interface RunPreflightOptions {
  /** A client with the credentials and flavour to check; the caller closes it. */
  client: AtlasClient;
  /** The sources and Atlas settings to check. */
  config: PollerConfig;
  /** What the credentials are, for the report: an API key (HTTP Digest) or a service account. */
  credentialsKind: 'digest' | 'service-account';
  /**
   * Who they are: the API key's public key or the service account's client id (neither is a secret),
   * to find them among each organization's keys and judge their roles and access list.
   */
  credentialsId?: string | undefined;
  /** Aborts every call (the command's deadline). */
  signal: AbortSignal;
}

/** What a probe found: a note (`2 API keys`), whether it is a warning, and follow-up probes. */
interface ProbeFinding {
  note: string;
  /** The call could not prove the role (nothing to read): the note is a warning, not a pass. */
  warn?: boolean;
  next?: Probe[];
}

/** One call that proves a role on one org or project. */
interface Probe {
  readonly call: AtlasCallName;
  /** `org <id>` or `project <id>`. */
  readonly scope: string;
  /** Makes the call and says what it found. */
  readonly run: (signal: AbortSignal) => Promise<ProbeFinding>;
}

/** Probes run at once after the first. */
const PROBE_CONCURRENCY = 4;

/**
 * The skew is the client's clock (when the last answer arrived) against the answer's `Date` header.
 *
 * Checks that the configured Atlas answers, accepts the credentials, accepts calls from this
 * machine's address, and grants every role the configured sources need (org events, the inventory
 * of API keys, service accounts and project access lists, project discovery, project events, and
 * with `sources.accessHistory` each project's database access history), then measures the local
 * clock against Atlas's `Date` header. Makes one small call per org, project and inventory list
 * (`itemsPerPage=1`, first page only), and two per project for the access history (its clusters,
 * then one line of one dedicated cluster: see {@link checkAccessHistory}). The first call runs
 * alone: when it shows refused credentials, a refused address or an API that does not answer, every
 * other check is skipped rather than failing the same way. Later 401s are refusals of a role: the
 * credentials were accepted by then.
 *
 * Never throws for Atlas's answers: each becomes a result. Throws the signal's reason when aborted.
 *
 * @example
 * ```ts
 * const results = await runPreflight({ client, config: settings.config, clock: systemClock });
 * const failed = results.some((result) => result.status === 'fail');
 * ```
 */
export async function runPreflight(options: RunPreflightOptions): Promise<CheckResult[]> {
  const { client, config, signal } = options;
  const probes = initialProbes(client, config);
  const outcomes: Array<{ probe: Probe; error?: unknown; finding?: ProbeFinding }> = [];
  const runOne = async (probe: Probe): Promise<Probe[]> => {
    try {
      const finding = await probe.run(signal);
      outcomes.push({ probe, finding });
      return finding.next ?? [];
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      outcomes.push({ probe, error });
      return [];
    }
  };
  const [first, ...rest] = probes;
  let blocked: CheckResult[] = [];
  // The API version is the one events answered with: later calls ask some resources in their own.
  let firstAnswer: AtlasAnswer | undefined;
  if (first !== undefined) {
    const next = await runOne(first);
    firstAnswer = client.lastAnswer;
    const firstError = outcomes[0]?.error;
    blocked = blockingResults(options, firstError);
    if (blocked.length === 0) {
      let queue = [...next, ...rest];
      while (queue.length > 0) {
        const followUps = await mapWithConcurrency(queue, PROBE_CONCURRENCY, runOne);
        queue = followUps.flat();
      }
    }
  }
  if (blocked.length > 0) {
    const reason = blocked.find((result) => result.status === 'fail')?.check ?? 'atlas';
    return [
      ...blocked,
      ...probes.map((probe) => ({
        ...accessFields(probe),
        status: 'skip' as const,
        message: `not checked: the ${reason} check failed`,
      })),
    ];
  }
  return [
    apiResult(firstAnswer ?? client.lastAnswer, config, undefined),
    credentialsResult(options.credentialsKind),
    {
      check: 'egress',
      status: 'ok',
      subject: 'egress address',
      message: 'Atlas accepts calls from this machine',
    },
    ...outcomes.map(({ probe, error, finding }) => accessResult(probe, error, finding)),
    ...(await privilegeResults(options)),
    clockResult(client.lastAnswer, config),
  ];
}

/** The roles and access list of the credentials themselves, in one organization. */
interface OwnCredentials {
  /** The owner roles they hold there, as people name them: `Organization Owner`, `Project Owner on project 64b5…`. */
  ownerRoles: string[];
  /** The entries of their access list open to the internet, as written (`0.0.0.0/0`). */
  openEntries: string[];
  /** How many entries their access list holds. */
  entries: number;
}

/**
 * Whether the credentials hold more than the poller needs, in each configured organization: an owner
 * role (the poller reads; Organization Read Only covers every call, with Project Cluster Log Viewer
 * on each project for the access history), or an access list open to the internet (`0.0.0.0/0`).
 * Each is a warning: the built-in rules raise a finding for such a key, and a leaked one can do
 * anything from anywhere. Nothing is said where the credentials are not among the
 * organization's own (another organization's key) or cannot be listed (the access checks say why).
 */
async function privilegeResults(options: RunPreflightOptions): Promise<CheckResult[]> {
  const { client, config, credentialsKind, credentialsId, signal } = options;
  if (credentialsId === undefined) return [];
  const what = credentialsKind === 'digest' ? 'API key' : 'service account';
  const results: CheckResult[] = [];
  for (const orgId of config.sources.orgIds) {
    let own: OwnCredentials | undefined;
    try {
      own =
        credentialsKind === 'digest'
          ? await ownApiKey(client, orgId, credentialsId, signal)
          : await ownServiceAccount(client, orgId, credentialsId, signal);
    } catch {
      // The access checks report why the keys or their access lists cannot be read.
      if (signal.aborted) throw signal.reason;
      continue;
    }
    if (own === undefined) continue;
    const subject = `the ${what}'s privileges on org ${orgId}`;
    const base = { check: 'privilege', subject } as const;
    if (own.ownerRoles.length > 0) {
      const least =
        config.sources.accessHistory === true
          ? {
              roles:
                'Organization Read Only and, for the access history, Project Cluster Log Viewer on each project',
              cover: 'cover',
            }
          : { roles: 'Organization Read Only', cover: 'covers' };
      results.push({
        ...base,
        status: 'warn',
        message: `it holds ${own.ownerRoles.join(' and ')}, more than the poller needs (${least.roles} ${least.cover} every call it makes); the built-in rules raise a finding on such a credential, and a leaked one can change anything: give the poller ${what === 'API key' ? 'a key' : 'an account'} with ${least.roles}`,
      });
    }
    if (own.openEntries.length > 0) {
      results.push({
        ...base,
        status: 'warn',
        message: `its access list lets it in from ${own.openEntries.join(', ')}, most of the internet; the built-in rules raise a critical alert on it: list only the addresses the poller calls from (the EgressIpAddresses output of a stack with network.mode create-vpc, see docs/deploy.md)`,
      });
    }
    if (own.ownerRoles.length === 0 && own.openEntries.length === 0) {
      results.push({
        ...base,
        status: 'ok',
        message: `no owner role, and ${own.entries === 0 ? 'no access list' : `an access list of ${counted(own.entries, 'entry')}, none open to the internet`}`,
      });
    }
  }
  return results;
}

async function ownApiKey(
  client: AtlasClient,
  orgId: string,
  publicKey: string,
  signal: AbortSignal,
): Promise<OwnCredentials | undefined> {
  const keys = await client.listApiKeys(orgId, { signal }).toArray();
  const key = keys.find((candidate) => candidate.publicKey === publicKey);
  if (key === undefined) return undefined;
  const ownerRoles = (key.roles ?? [])
    .filter((role) => typeof role.roleName === 'string' && OWNER_ROLE_NAMES.includes(role.roleName))
    .filter((role) => role.orgId === undefined || role.orgId === orgId)
    .map((role) =>
      role.roleName === 'GROUP_OWNER' && typeof role.groupId === 'string'
        ? `Project Owner on project ${role.groupId}`
        : describeRole(String(role.roleName)),
    );
  const accessList = await client.listApiKeyAccessList(orgId, key.id, { signal }).toArray();
  return {
    ownerRoles: [...new Set(ownerRoles)],
    openEntries: accessList
      .filter(isOpenToInternet)
      .map((entry) => String(entry.cidrBlock ?? entry.ipAddress)),
    entries: accessList.length,
  };
}

async function ownServiceAccount(
  client: AtlasClient,
  orgId: string,
  clientId: string,
  signal: AbortSignal,
): Promise<OwnCredentials | undefined> {
  const accounts = await client.listServiceAccounts(orgId, { signal }).toArray();
  const account = accounts.find((candidate) => candidate.clientId === clientId);
  if (account === undefined) return undefined;
  const accessList = await client.listServiceAccountAccessList(orgId, clientId, { signal }).toArray();
  return {
    ownerRoles: (account.roles ?? []).filter((role) => OWNER_ROLE_NAMES.includes(role)).map(describeRole),
    openEntries: accessList
      .filter(isOpenToInternet)
      .map((entry) => String(entry.cidrBlock ?? entry.ipAddress)),
    entries: accessList.length,
  };
}

function describeRole(roleName: string): string {
  if (roleName === 'ORG_OWNER') return 'Organization Owner';
  if (roleName === 'GROUP_OWNER') return 'Project Owner';
  return roleName;
}

function initialProbes(client: AtlasClient, config: PollerConfig): Probe[] {
  const { orgIds, projectIds, allProjectsOfOrgs } = config.sources;
  // Every project, not a sample: the role is granted project by project.
  const readsAccessHistory = config.sources.accessHistory === true && config.atlas.flavor !== 'ops-manager';
  const configured = new Set(projectIds);
  const probes: Probe[] = [];
  const projectProbe = (projectId: string): Probe => ({
    call: 'projectEvents',
    scope: `project ${projectId}`,
    run: async (signal) => {
      const events = await firstPageNote(
        client.listProjectEvents(projectId, { itemsPerPage: 1, signal }),
        'event',
      );
      const accessList: Probe = {
        call: 'projectAccessList',
        scope: `project ${projectId}`,
        run: async (innerSignal) =>
          firstPageNote(
            client.listProjectAccessList(projectId, { itemsPerPage: 1, signal: innerSignal }),
            'entry',
          ),
      };
      const name: Probe = {
        call: 'projectName',
        scope: `project ${projectId}`,
        run: async (innerSignal) => nameNote(await client.getProject(projectId, { signal: innerSignal })),
      };
      const accessHistory: Probe = {
        call: 'accessHistory',
        scope: `project ${projectId}`,
        run: async (innerSignal) => {
          const finding = await checkAccessHistory({ client, projectId, signal: innerSignal });
          return { note: finding.note, warn: finding.status === 'warn' };
        },
      };
      return { ...events, next: readsAccessHistory ? [accessList, name, accessHistory] : [accessList, name] };
    },
  });
  for (const orgId of orgIds) {
    probes.push({
      call: 'orgEvents',
      scope: `org ${orgId}`,
      run: async (signal) => firstPageNote(client.listOrgEvents(orgId, { itemsPerPage: 1, signal }), 'event'),
    });
    probes.push({
      call: 'orgName',
      scope: `org ${orgId}`,
      run: async (signal) => nameNote(await client.getOrg(orgId, { signal })),
    });
    probes.push({
      call: 'apiKeys',
      scope: `org ${orgId}`,
      run: async (signal) => {
        const page = await firstPage(client.listApiKeys(orgId, { itemsPerPage: 1, signal }));
        const key = page?.items[0];
        const next: Probe[] =
          key === undefined
            ? []
            : [
                {
                  call: 'apiKeyAccessList',
                  scope: `org ${orgId}`,
                  run: async (innerSignal) =>
                    firstPageNote(
                      client.listApiKeyAccessList(orgId, key.id, { itemsPerPage: 1, signal: innerSignal }),
                      'entry',
                    ),
                },
              ];
        return { note: counted(page?.totalCount ?? 0, 'API key'), next };
      },
    });
    // Ops Manager and the v1.0 API have no service accounts: the inventory skips them there.
    if (config.atlas.flavor === 'atlas-v2') {
      probes.push({
        call: 'serviceAccounts',
        scope: `org ${orgId}`,
        run: async (signal) =>
          firstPageNote(client.listServiceAccounts(orgId, { itemsPerPage: 1, signal }), 'service account'),
      });
    }
    if (allProjectsOfOrgs) {
      probes.push({
        call: 'orgProjects',
        scope: `org ${orgId}`,
        run: async (signal) => {
          const projects = await client.listOrgProjects(orgId, { signal }).toArray();
          const fresh = projects.map((project) => project.id).filter((id) => !configured.has(id));
          for (const id of fresh) configured.add(id);
          return { note: counted(projects.length, 'project'), next: fresh.map(projectProbe) };
        },
      });
    }
  }
  for (const projectId of projectIds) probes.push(projectProbe(projectId));
  return probes;
}

async function firstPage<T>(list: { pages(): AsyncGenerator<T> }): Promise<T | undefined> {
  for await (const page of list.pages()) return page;
  return undefined;
}

async function firstPageNote(
  list: { pages(): AsyncGenerator<{ totalCount: number | undefined }> },
  noun: string,
): Promise<{ note: string }> {
  const page = await firstPage(list);
  return { note: counted(page?.totalCount ?? 0, noun) };
}

/** What a name probe found: the name as alerts show it, cleaned. */
function nameNote(resource: { name?: unknown }): { note: string } {
  const name = cleanAtlasName(resource.name);
  return { note: name === undefined ? 'no name given: alerts show the id' : `named ${name}` };
}

/**
 * The results that stop the preflight after its first call: refused credentials, a refused address,
 * or an API that does not answer as the flavour expects. Empty when the first call got through (or
 * failed only for its own org or project).
 */
function blockingResults(options: RunPreflightOptions, error: unknown): CheckResult[] {
  const { client, config } = options;
  if (!(error instanceof AtlasError)) return [];
  if (error instanceof AtlasAuthError) {
    return [
      apiResult(client.lastAnswer, config, undefined),
      credentialsResult(options.credentialsKind, error),
    ];
  }
  if (error instanceof AtlasForbiddenError && error.errorCode === 'IP_ADDRESS_NOT_ON_ACCESS_LIST') {
    const address = refusedAddress(error.message);
    const who = address === undefined ? "this machine's address" : address;
    return [
      apiResult(client.lastAnswer, config, undefined),
      credentialsResult(options.credentialsKind),
      {
        check: 'egress',
        status: 'fail',
        subject: 'egress address',
        message:
          `Atlas refuses calls from ${who} (403 IP_ADDRESS_NOT_ON_ACCESS_LIST): add ${address ?? 'it'} to the ` +
          "access list of the API key or service account (Organization > Access Manager > API Keys > Edit > Access List), or run from an address on it; the Lambda's own egress address is the NAT gateway's Elastic IP of its network",
        ...(address === undefined ? {} : { address }),
        ...failureOf(error),
      },
    ];
  }
  if (
    error instanceof AtlasVersionError ||
    (error.status === undefined && !(error instanceof AtlasForbiddenError)) ||
    (error.status !== undefined && error.status >= 500)
  ) {
    return [apiResult(client.lastAnswer, config, error)];
  }
  return [];
}

/** The address in Atlas's detail: `IP address 203.0.113.7 is not allowed to access this resource.` */
function refusedAddress(message: string): string | undefined {
  const match = /IP address ([0-9A-Fa-f:.]+[0-9A-Fa-f])/.exec(message);
  return match?.[1];
}

/** The API check, from an answer of the events the poller reads (its `Content-Type` names the version). */
function apiResult(
  answer: AtlasAnswer | undefined,
  config: PollerConfig,
  error: AtlasError | undefined,
): CheckResult {
  const { flavor, baseUrl } = config.atlas;
  const subject = `${flavor} API at ${baseUrl}`;
  if (error !== undefined) {
    return { check: 'atlas', status: 'fail', subject, message: error.message, ...failureOf(error) };
  }
  const contentType = answer?.contentType ?? '';
  const version = /application\/vnd\.atlas\.(\d{4}-\d{2}-\d{2})\+json/.exec(contentType)?.[1];
  return {
    check: 'atlas',
    status: 'ok',
    subject,
    message: version === undefined ? 'answers' : `answers with API version ${version}`,
  };
}

function credentialsResult(
  kind: RunPreflightOptions['credentialsKind'],
  error?: AtlasAuthError,
): CheckResult {
  const base = { check: 'credentials', subject: 'credentials' } as const;
  if (error === undefined) {
    const what = kind === 'digest' ? 'the API key (HTTP Digest)' : 'the service account (OAuth 2.0)';
    return { ...base, status: 'ok', message: `Atlas accepts ${what}` };
  }
  return { ...base, status: 'fail', message: error.message, ...failureOf(error) };
}

function accessFields(probe: Probe): Pick<CheckResult, 'check' | 'subject' | 'role' | 'call'> {
  const requirement = ATLAS_ROLE_REQUIREMENTS[probe.call];
  return {
    check: 'access',
    subject: `${probe.scope} ${requirement.purpose}`,
    role: requirement.role,
    call: requirement.call,
  };
}

function accessResult(probe: Probe, error: unknown, finding: ProbeFinding | undefined): CheckResult {
  const fields = accessFields(probe);
  const requirement: AtlasRoleRequirement = ATLAS_ROLE_REQUIREMENTS[probe.call];
  const { role } = requirement;
  if (error === undefined) {
    const note = finding?.note ?? '';
    if (finding?.warn === true) return { ...fields, status: 'warn', message: note };
    return { ...fields, status: 'ok', message: `readable (${role}): ${note}` };
  }
  // The credentials were accepted by the first call: a 401 now is Atlas refusing a role, as a 403 is.
  if (error instanceof AtlasForbiddenError || error instanceof AtlasAuthError) {
    const grant = requirement.grant ?? `${role} or higher`;
    return {
      ...fields,
      status: 'fail',
      message: `refused (${error.status ?? (error instanceof AtlasAuthError ? 401 : 403)}${error.errorCode === undefined ? '' : ` ${error.errorCode}`}): give the API key or service account ${grant} on ${probe.scope}${requirement.why === undefined ? '' : `: ${requirement.why}`}`,
      ...failureOf(error),
    };
  }
  // A cluster gone since it was listed is not an unknown project: Atlas's own words say which.
  if (error instanceof AtlasNotFoundError && error.errorCode !== 'CLUSTER_NOT_FOUND') {
    return {
      ...fields,
      status: 'fail',
      message: `Atlas does not know ${probe.scope} (404${error.errorCode === undefined ? '' : ` ${error.errorCode}`}): check the id, and the --base-url and --flavor it lives under`,
      ...failureOf(error),
    };
  }
  return {
    ...fields,
    status: 'fail',
    message: error instanceof Error ? error.message : String(error),
    ...failureOf(error),
  };
}

/**
 * The local clock against Atlas's `Date` header (whole seconds, so a skew under a second reads 0).
 * A skew beyond the window's lag is a warning: the poller reads Atlas's clock for its windows, but
 * logs and `--since` times on this machine are then off by as much.
 */
function clockResult(answer: AtlasAnswer | undefined, config: PollerConfig): CheckResult {
  const base = { check: 'clock', subject: 'clock' } as const;
  const serverDate = parseServerDate(answer?.date);
  if (answer === undefined || serverDate === undefined) {
    return { ...base, status: 'warn', message: 'Atlas sent no readable Date header: skew not measured' };
  }
  const skewMs = answer.receivedAt - serverDate.getTime();
  // The header has whole seconds: anything under a second of skew is noise.
  const shown = Math.abs(skewMs) < 1_000 ? 0 : skewMs;
  const seconds = Math.abs(shown) / 1_000;
  const where =
    shown === 0
      ? 'within a second of Atlas'
      : `${seconds.toFixed(0)} s ${shown > 0 ? 'ahead of' : 'behind'} Atlas`;
  const lagMs = config.timing.lagSeconds * 1_000;
  if (Math.abs(shown) > Math.max(lagMs, 1_000) + 1_000) {
    return {
      ...base,
      status: 'warn',
      message: `this machine's clock is ${where}, more than the ${config.timing.lagSeconds} s lag: set it from NTP (timedatectl set-ntp true)`,
      skewMs: shown,
    };
  }
  return { ...base, status: 'ok', message: `this machine's clock is ${where}`, skewMs: shown };
}
