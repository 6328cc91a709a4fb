/** Words of Atlas event type names that read better as Atlas's own nouns or as an acronym. */
const WORDS: Readonly<Record<string, string>> = {
  GROUP: 'project',
  GROUPS: 'projects',
  ORG: 'organization',
  ORGS: 'organizations',
  MONGODB: 'MongoDB',
  AZURE: 'Azure',
  X509: 'X.509',
  DB: 'database',
  OAUTH: 'OAuth',
  VERCEL: 'Vercel',
};

/** Words kept upper case: acronyms people read as such. */
const ACRONYMS = new Set([
  'AI',
  'API',
  'AWS',
  'CIDR',
  'CPS',
  'CRL',
  'CRUD',
  'GCP',
  'IAM',
  'IP',
  'JWKS',
  'KMS',
  'LDAP',
  'MFA',
  'NDS',
  'OIDC',
  'OTEL',
  'S3',
  'SAML',
  'SQL',
  'SSH',
  'UI',
  'UUID',
]);

/** The longest event type name turned into words; longer text is not an Atlas event type. */
const MAX_TYPE_LENGTH = 128;

/**
 * An event type name as a title reads it: its words in lower case, the first one capitalised, with
 * Atlas's own nouns (`GROUP` is a project, `ORG` an organization) and acronyms kept as such; a trailing
 * `AUDIT` is left out. `undefined` for anything that is not an upper-case event type name. What
 * `{{context.eventWords}}` renders, so one rule over several event types can say which happened:
 * `{{context.eventWords}}: {{context.teamName | teamId}}`.
 *
 * @example
 * ```ts
 * eventTypeWords('TEAM_REMOVED_FROM_GROUP'); // 'Team removed from project'
 * eventTypeWords('ALERT_CONFIG_DELETED_AUDIT'); // 'Alert config deleted'
 * ```
 */
export function eventTypeWords(eventTypeName: unknown): string | undefined {
  if (typeof eventTypeName !== 'string' || eventTypeName.length > MAX_TYPE_LENGTH) return undefined;
  if (known.has(eventTypeName)) return known.get(eventTypeName);
  const words = wordsOf(eventTypeName);
  // Atlas has a few hundred event types; a flood of made-up ones only restarts the cache.
  if (known.size >= MAX_KNOWN) known.clear();
  known.set(eventTypeName, words);
  return words;
}

/** Event type names already turned into words: an alert's title asks once per alert. */
const known = new Map<string, string | undefined>();
const MAX_KNOWN = 1_024;

function wordsOf(eventTypeName: string): string | undefined {
  if (!/^[A-Z0-9]+(?:_[A-Z0-9]+)*$/.test(eventTypeName)) return undefined;
  const parts = eventTypeName.split('_');
  if (parts.length > 1 && parts.at(-1) === 'AUDIT') parts.pop();
  const words = parts.map((part) => WORDS[part] ?? (ACRONYMS.has(part) ? part : part.toLowerCase()));
  const [first = '', ...rest] = words;
  return [`${first.charAt(0).toUpperCase()}${first.slice(1)}`, ...rest].join(' ');
}
