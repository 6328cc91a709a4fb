import type { AwsSecurityFinding } from '@aws-sdk/client-securityhub';
import {
  ASFF_SCHEMA_VERSION,
  MAX_DESCRIPTION_LENGTH,
  MAX_FINDING_BYTES,
  MAX_FINDING_ID_LENGTH,
  MAX_GENERATOR_ID_LENGTH,
  MAX_OTHER_DETAIL_KEY_LENGTH,
  MAX_OTHER_DETAIL_VALUE_LENGTH,
  MAX_OTHER_DETAILS,
  MAX_PRODUCT_FIELD_KEY_LENGTH,
  MAX_PRODUCT_FIELD_VALUE_LENGTH,
  MAX_PRODUCT_FIELDS,
  MAX_RECOMMENDATION_TEXT_LENGTH,
  MAX_RESOURCE_ID_LENGTH,
  MAX_RESOURCE_TYPE_LENGTH,
  MAX_RESOURCES,
  MAX_SEVERITY_ORIGINAL_LENGTH,
  MAX_SOURCE_URL_LENGTH,
  MAX_TITLE_LENGTH,
  MAX_TYPE_LENGTH,
  MAX_TYPES,
  SEVERITY_LABELS,
  TYPE_NAMESPACES,
} from './asff-limits.js';

export type AsffFindingValidation = { valid: true } | { valid: false; problems: string[] };

/** `Welcome#timestamps` of the Security Hub API Reference: RFC 3339, at most nine fraction digits. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}(:?\d{2})?)$/;
const ACCOUNT_ID = /^\d{12}$/;
const DEFAULT_PRODUCT_ARN = /^arn:aws[a-z-]*:securityhub:[a-z0-9-]+:(\d{12}):product\/(\d{12})\/default$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const RECORD_STATES = new Set(['ACTIVE', 'ARCHIVED']);
const WORKFLOW_STATUSES = new Set(['NEW', 'NOTIFIED', 'RESOLVED', 'SUPPRESSED']);
const COMPLIANCE_STATUSES = new Set(['PASSED', 'WARNING', 'FAILED', 'NOT_AVAILABLE']);

/**
 * The size of a finding as Security Hub measures it: its JSON in UTF-8 bytes.
 *
 * @example
 * ```ts
 * asffFindingBytes(finding) <= MAX_FINDING_BYTES;
 * ```
 */
export function asffFindingBytes(finding: AwsSecurityFinding): number {
  return Buffer.byteLength(JSON.stringify(finding));
}

/**
 * The check every finding passes before the Security Hub notifier sends it: the required fields, each
 * string's documented length, the `Types` taxonomy form, RFC 3339 timestamps, the severity labels, at
 * most 32 resources, the `ProductFields` and `Details.Other` limits, well-formed text (no lone
 * surrogate, which no UTF-8 body can carry) and 240 KB (see `asff-limits.ts` for the pages each limit
 * comes from). Lists each rule the finding breaks. Never throws.
 *
 * @example
 * ```ts
 * const result = validateAsffFinding(toAsffFinding(alert, options));
 * if (!result.valid) logger.error('finding not sent', { problems: result.problems });
 * ```
 */
export function validateAsffFinding(finding: AwsSecurityFinding): AsffFindingValidation {
  const problems: string[] = [];
  const record = finding as unknown as Record<string, unknown>;
  if (record.SchemaVersion !== ASFF_SCHEMA_VERSION)
    problems.push(`SchemaVersion must be ${ASFF_SCHEMA_VERSION}`);
  text(problems, 'Id', record.Id, MAX_FINDING_ID_LENGTH);
  text(problems, 'GeneratorId', record.GeneratorId, MAX_GENERATOR_ID_LENGTH);
  text(problems, 'Title', record.Title, MAX_TITLE_LENGTH);
  text(problems, 'Description', record.Description, MAX_DESCRIPTION_LENGTH);
  checkProduct(problems, record.ProductArn, record.AwsAccountId);
  checkTypes(problems, 'Types', record.Types);
  checkSeverity(problems, 'Severity', record.Severity);
  for (const name of ['CreatedAt', 'UpdatedAt'] as const) timestamp(problems, name, record[name], true);
  for (const name of ['FirstObservedAt', 'LastObservedAt'] as const)
    timestamp(problems, name, record[name], false);
  if (typeof record.CreatedAt === 'string' && typeof record.UpdatedAt === 'string') {
    if (Date.parse(record.UpdatedAt) < Date.parse(record.CreatedAt))
      problems.push('UpdatedAt is before CreatedAt');
  }
  const recommendation = (record.Remediation as { Recommendation?: { Text?: unknown } } | undefined)
    ?.Recommendation?.Text;
  if (recommendation !== undefined) {
    text(problems, 'Remediation.Recommendation.Text', recommendation, MAX_RECOMMENDATION_TEXT_LENGTH);
  }
  if (record.SourceUrl !== undefined) checkUrl(problems, record.SourceUrl);
  checkMap(problems, 'ProductFields', record.ProductFields, {
    pairs: MAX_PRODUCT_FIELDS,
    key: MAX_PRODUCT_FIELD_KEY_LENGTH,
    value: MAX_PRODUCT_FIELD_VALUE_LENGTH,
  });
  checkResources(problems, record.Resources);
  enumValue(problems, 'RecordState', record.RecordState, RECORD_STATES);
  enumValue(
    problems,
    'Workflow.Status',
    (record.Workflow as { Status?: unknown } | undefined)?.Status,
    WORKFLOW_STATUSES,
  );
  if (record.Compliance !== undefined) {
    const status = (record.Compliance as { Status?: unknown }).Status;
    enumValue(problems, 'Compliance.Status', status, COMPLIANCE_STATUSES);
  }
  const provider = record.FindingProviderFields as { Severity?: unknown; Types?: unknown } | undefined;
  if (provider !== undefined) {
    checkSeverity(problems, 'FindingProviderFields.Severity', provider.Severity);
    checkTypes(problems, 'FindingProviderFields.Types', provider.Types);
  }
  if (problems.length === 0) {
    if (holdsLoneSurrogate(finding)) problems.push('a text holds a lone UTF-16 surrogate');
    const bytes = asffFindingBytes(finding);
    if (bytes > MAX_FINDING_BYTES)
      problems.push(`the finding takes ${bytes} bytes; Security Hub takes at most ${MAX_FINDING_BYTES}`);
  }
  return problems.length === 0 ? { valid: true } : { valid: false, problems };
}

/** A required string of 1 to `max` characters holding a character that is not white space. */
function text(problems: string[], name: string, value: unknown, max: number): void {
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push(`${name} must be a string holding a visible character`);
  } else if (value.length > max) {
    problems.push(`${name} has ${value.length} characters; ASFF takes at most ${max}`);
  }
}

function checkProduct(problems: string[], productArn: unknown, accountId: unknown): void {
  if (typeof accountId !== 'string' || !ACCOUNT_ID.test(accountId))
    problems.push('AwsAccountId must be 12 digits');
  const match = typeof productArn === 'string' ? DEFAULT_PRODUCT_ARN.exec(productArn) : null;
  if (match === null) {
    problems.push(
      'ProductArn must be arn:<partition>:securityhub:<region>:<account>:product/<account>/default',
    );
  } else if (match[1] !== accountId || match[2] !== accountId) {
    problems.push('ProductArn must name the account of AwsAccountId');
  }
}

function checkTypes(problems: string[], name: string, types: unknown): void {
  if (!Array.isArray(types) || types.length === 0 || types.length > MAX_TYPES) {
    problems.push(`${name} must hold 1 to ${MAX_TYPES} types`);
    return;
  }
  for (const type of types as unknown[]) {
    const parts = typeof type === 'string' ? type.split('/') : [];
    const namespace = parts[0] ?? '';
    const wellFormed =
      typeof type === 'string' &&
      type.length <= MAX_TYPE_LENGTH &&
      parts.length <= 3 &&
      (TYPE_NAMESPACES as readonly string[]).includes(namespace) &&
      parts.every((segment) => segment.trim() !== '');
    if (!wellFormed) {
      problems.push(
        `${name} holds "${String(type).slice(0, 80)}": a type is namespace[/category[/classifier]] with a namespace of the ASFF taxonomy`,
      );
    }
  }
}

function checkSeverity(problems: string[], name: string, severity: unknown): void {
  const { Label, Original } = (severity ?? {}) as { Label?: unknown; Original?: unknown };
  if (!(SEVERITY_LABELS as readonly unknown[]).includes(Label)) {
    problems.push(`${name}.Label must be one of ${SEVERITY_LABELS.join(', ')}`);
  }
  if (Original !== undefined) text(problems, `${name}.Original`, Original, MAX_SEVERITY_ORIGINAL_LENGTH);
}

function timestamp(problems: string[], name: string, value: unknown, required: boolean): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'string' || !TIMESTAMP.test(value) || !Number.isFinite(Date.parse(value))) {
    problems.push(`${name} must be an RFC 3339 time such as 2026-11-22T06:12:41.000Z`);
  }
}

function checkUrl(problems: string[], value: unknown): void {
  let ok = typeof value === 'string' && value.length <= MAX_SOURCE_URL_LENGTH;
  if (ok) {
    try {
      ok = ['http:', 'https:'].includes(new URL(value as string).protocol);
    } catch {
      ok = false;
    }
  }
  if (!ok) problems.push(`SourceUrl must be an http(s) URL of at most ${MAX_SOURCE_URL_LENGTH} characters`);
}

function checkMap(
  problems: string[],
  name: string,
  value: unknown,
  limits: { pairs: number; key: number; value: number },
): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${name} must be a map of strings`);
    return;
  }
  const entries = Object.entries(value);
  if (entries.length > limits.pairs)
    problems.push(`${name} has ${entries.length} pairs; ASFF takes at most ${limits.pairs}`);
  for (const [key, entry] of entries) {
    if (key.trim() === '' || key.length > limits.key) {
      problems.push(`${name} has a key of ${key.length} characters; keys are 1 to ${limits.key}`);
    }
    if (typeof entry !== 'string' || entry.length > limits.value) {
      problems.push(`${name}.${key.slice(0, 40)} must be a string of at most ${limits.value} characters`);
    }
  }
}

function checkResources(problems: string[], resources: unknown): void {
  if (!Array.isArray(resources) || resources.length === 0 || resources.length > MAX_RESOURCES) {
    problems.push(`Resources must hold 1 to ${MAX_RESOURCES} resources`);
    return;
  }
  (resources as unknown[]).forEach((resource, index) => {
    const { Type, Id, Details } = (resource ?? {}) as { Type?: unknown; Id?: unknown; Details?: unknown };
    text(problems, `Resources[${index}].Type`, Type, MAX_RESOURCE_TYPE_LENGTH);
    text(problems, `Resources[${index}].Id`, Id, MAX_RESOURCE_ID_LENGTH);
    const other = (Details as { Other?: unknown } | undefined)?.Other;
    checkMap(problems, `Resources[${index}].Details.Other`, other, {
      pairs: MAX_OTHER_DETAILS,
      key: MAX_OTHER_DETAIL_KEY_LENGTH,
      value: MAX_OTHER_DETAIL_VALUE_LENGTH,
    });
  });
}

function enumValue(problems: string[], name: string, value: unknown, allowed: ReadonlySet<string>): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || !allowed.has(value)) {
    problems.push(`${name} must be one of ${[...allowed].join(', ')}`);
  }
}

/**
 * Whether a string anywhere in `value` (a key or a value) holds a lone surrogate. `JSON.stringify`
 * writes one as a `\uD800` escape, so its output cannot tell.
 */
function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(holdsLoneSurrogate);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, item]) => LONE_SURROGATE.test(key) || holdsLoneSurrogate(item));
  }
  return false;
}
