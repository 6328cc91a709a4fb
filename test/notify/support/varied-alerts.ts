import { createRandom, type Random } from '../../../bench/support/random.js';
import type { AtlasEvent } from '../../../shared/atlas/types.js';
import type { Alert, Severity } from '../../../shared/notify/alert.js';
import type { FormatContext } from '../../../shared/notify/format-context.js';

/**
 * Alerts of every shape formatting must survive, made from ordinary alerts by a seeded generator:
 * values with control characters, line breaks, bidi controls, lone surrogates, Slack markup and
 * mentions, non-ASCII text, long and very long values (up to a megabyte), deep and wide JSON, fields of
 * the wrong type, many events. The same seed gives the same alerts.
 */

/** Pieces hostile text is built from. */
const PIECES = [
  'alice',
  'j.doe@example.com',
  'NETWORK_PERMISSION_ENTRY_ADDED',
  'a_b*c~d',
  '_lead_ *bold* ~strike~ `code`',
  '<!channel>',
  '<!here>',
  '<@U12345678>',
  '<@W0ABCDEF>',
  '<!subteam^S0123ABC>',
  '<https://evil.example|click>',
  '@channel @here',
  '&amp; & < >',
  '\u0000\u0007\u001b[31mred\u001b[0m',
  '\r\n',
  '\n',
  '\r',
  '\t',
  '\u0085\u2028\u2029',
  '\u007f\u0080\u009f',
  '\u202Eevil\u202C',
  '\u2066\u2067\u2068\u2069\u200E\u200F\u061C',
  '\uD800',
  '\uDC00',
  'x\uD83D',
  '\uDE00y',
  '😀🚀',
  'Zugriff für „Jürgen“',
  'ßæœøđłþ ı ħ',
  '漢字かなカナ',
  'مرحبا',
  '…‘’“”–—•·×→≤≥≠©®™€£¥',
  '\uFFFE\uFFFF',
  '  ',
  '0.0.0.0/0',
  '::/0',
  '"quoted" \\back\\slash',
  '- step one\n2) step two\n• bullet',
  '|pipe|',
];

const SEVERITIES: readonly Severity[] = ['info', 'low', 'medium', 'high', 'critical'];
/** Lengths of the long values: past each limit of the formatters, and far past them. */
const LONG_LENGTHS = [99, 100, 101, 199, 200, 201, 249, 250, 251, 499, 500, 501, 1_024, 8_000, 8_001, 20_000];
const HUGE_LENGTHS = [70_000, 262_144, 1_000_000];

/** Console settings formatting is tried with. */
const CONTEXTS: readonly Omit<FormatContext, 'now'>[] = [
  {},
  { console: { flavor: 'atlas-v2', baseUrl: 'https://cloud.mongodb.com' } },
  { console: { flavor: 'atlas-v1', baseUrl: 'https://cloud.mongodb.com/' } },
  { console: { flavor: 'ops-manager', baseUrl: 'http://om.example.com:8080/base/' } },
];

export interface VariedAlert {
  alert: Alert;
  context: FormatContext;
  /** A byte limit for the entry below the SNS default, which forces the cuts; absent for the default. */
  maxBytes?: number;
}

/**
 * Returns, for every ordinary alert, that alert as is and `variants` hostile variants of it, each with a
 * formatting context and sometimes a tight byte limit. One variant in `hugeEvery` carries a value of
 * 70 KB to 1 MB.
 *
 * @example
 * ```ts
 * const cases = variedAlerts(await generateAlertMix({ count: 500 }), { seed: 3, variants: 4 });
 * ```
 */
export function variedAlerts(
  alerts: readonly Alert[],
  options: { seed: number; variants: number; hugeEvery: number; now: number },
): VariedAlert[] {
  const random = createRandom(options.seed);
  const cases: VariedAlert[] = [];
  let made = 0;
  for (const alert of alerts) {
    cases.push({ alert, context: { now: options.now, ...random.pick(CONTEXTS) } });
    for (let variant = 0; variant < options.variants; variant++) {
      made += 1;
      const huge = made % options.hugeEvery === 0;
      const text = (): string => hostileText(random, huge && random.next() < 0.5);
      const hostile = mutate(alert, random, text);
      const roll = random.next();
      const maxBytes =
        roll < 0.1 ? 600 + random.int(1_500) : roll < 0.2 ? 2_000 + random.int(30_000) : undefined;
      cases.push({
        alert: hostile,
        context: { now: options.now + random.int(90_000_000) - 3_600_000, ...random.pick(CONTEXTS) },
        ...(maxBytes === undefined ? {} : { maxBytes }),
      });
    }
  }
  return cases;
}

/** Text made of a few random pieces, sometimes padded to a long or huge length. */
export function hostileText(random: Random, huge = false): string {
  let text = '';
  const count = 1 + random.int(4);
  for (let index = 0; index < count; index++) text += random.pick(PIECES);
  const roll = random.next();
  if (huge) return padTo(text, random.pick(HUGE_LENGTHS), random);
  if (roll < 0.25) return padTo(text, random.pick(LONG_LENGTHS), random);
  if (roll < 0.35) return text.trim() === '' ? text : `plain ${random.int(1000)}`;
  return text;
}

function padTo(text: string, length: number, random: Random): string {
  const filler = random.pick(['x', 'é', '_', '*a', ' ', '\u202E', '<!here>', '😀', '\n']);
  let out = text;
  while (out.length < length)
    out += filler.repeat(Math.min(4096, Math.ceil((length - out.length) / filler.length)));
  return out.slice(0, length);
}

function mutate(alert: Alert, random: Random, text: () => string): Alert {
  const pick = (): boolean => random.next() < 0.35;
  const events = alert.events.map((event) => mutateEvent(event, random, text));
  if (random.next() < 0.1) {
    const extra = 1 + random.int(30);
    for (let index = 0; index < extra; index++) events.push(mutateEvent(alert.events[0] ?? {}, random, text));
  }
  const next: Alert = {
    ...alert,
    severity: random.next() < 0.3 ? random.pick(SEVERITIES) : alert.severity,
    title: pick() ? text() : random.next() < 0.5 ? `${alert.title} ${text()}` : alert.title,
    summary: pick() ? text() : random.next() < 0.3 ? `${alert.summary}\n${text()}` : alert.summary,
    ruleName: pick() ? text() : alert.ruleName,
    tags: pick() ? [text(), ...alert.tags, text()] : alert.tags,
    fingerprint: pick() ? `${alert.fingerprint}:${text()}` : alert.fingerprint,
    allowMentions: random.next() < 0.4,
    events,
  };
  const runbookRoll = random.next();
  if (runbookRoll < 0.3) next.runbook = text();
  else if (runbookRoll < 0.4) next.runbook = Array.from({ length: 14 }, () => `- ${text()}`).join('\n');
  else if (runbookRoll < 0.45) delete next.runbook;
  if (random.next() < 0.15) next.ruleId = `${alert.ruleId}${text()}`;
  if (random.next() < 0.2 && next.context !== undefined) {
    next.context = { ...next.context, orgName: text(), projectName: text() };
  }
  if (random.next() < 0.1) {
    next.context = {
      ...next.context,
      credential: {
        kind: random.next() < 0.5 ? 'api-key' : 'service-account',
        id: text(),
        description: text(),
        roles: [text(), 'ORG_OWNER'],
        snapshotTakenAt: 0,
      },
    };
  }
  if (random.next() < 0.1) next.rulePack = { version: text(), layers: ['builtin', text()] };
  if (random.next() < 0.1) {
    const first = next.raisedAt - random.int(3 * 86_400_000);
    next.rollUp = { suppressed: 1 + random.int(5_000), first, last: first + random.int(86_400_000) };
  }
  return next;
}

const EVENT_FIELDS = [
  'username',
  'publicKey',
  'remoteAddress',
  'eventTypeName',
  'groupId',
  'orgId',
  'clusterName',
  'hostname',
  'port',
  'database',
  'collection',
  'whitelistEntry',
  'targetUsername',
  'dbUserUsername',
  'opType',
  'created',
  'id',
  'customField',
  'another field',
];

function mutateEvent(event: AtlasEvent, random: Random, text: () => string): AtlasEvent {
  const out: Record<string, unknown> = { ...event };
  const changes = random.int(4);
  for (let index = 0; index < changes; index++) {
    const field = random.pick(EVENT_FIELDS);
    const roll = random.next();
    out[field] =
      roll < 0.7
        ? text()
        : roll < 0.8
          ? random.int(100_000)
          : roll < 0.85
            ? true
            : roll < 0.9
              ? null
              : [text()];
  }
  const roll = random.next();
  if (roll < 0.05) out.nested = deep(random.pick([10, 40, 200]), text());
  else if (roll < 0.1)
    out.wide = Array.from({ length: random.pick([50, 600, 3_000]) }, (_, i) => `${i}${random.pick(PIECES)}`);
  else if (roll < 0.13) {
    out.manyKeys = Object.fromEntries(
      Array.from({ length: 700 }, (_, i) => [`k${i}${random.pick(PIECES)}`, i]),
    );
  } else if (roll < 0.16) {
    out.links = [
      {
        rel: 'self',
        href: random.pick(['javascript:alert(1)', `https://x.example/${text()}`, 'https://u:p@x.example/']),
      },
    ];
  } else if (roll < 0.19) {
    out.diffs = Array.from({ length: random.int(14) }, () => ({
      type: text(),
      status: 'NEW',
      name: text(),
      roles: [{ role: text(), db: text() }, 'bad'],
      params: [{ display: text(), old: text(), new: random.int(9) }, null],
    }));
  } else if (roll < 0.21) out.currentValue = { number: text(), units: text() };
  return out as AtlasEvent;
}

function deep(depth: number, leaf: string): unknown {
  let value: unknown = leaf;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { level: value } : [value, level];
  return value;
}
