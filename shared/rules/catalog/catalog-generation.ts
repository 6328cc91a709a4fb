import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parse } from 'yaml';
import { accessHistoryEventFields } from './access-history-event-fields.js';
import { auditLogEventFields } from './audit-log-event-fields.js';
import { buildEventCatalogData, formatEventCatalogData } from './event-catalog-data.js';
import { inventoryEventFields } from './inventory-event-fields.js';
import { readOpenApiEvents } from './openapi-events.js';
import { readSpecEventFields } from './spec-event-fields.js';

export interface GenerateEventCatalogOptions {
  /** The Atlas Admin API v2 OpenAPI document (YAML or JSON). */
  readonly openApiPath: string;
  /** The API document this project implements (the Public Management API v1.0 text). */
  readonly specPath: string;
}

/**
 * Generates the event catalog's file text from the Atlas OpenAPI document, the implemented API
 * document and the inventory event builders: what `npm run catalog` writes.
 *
 * @throws {OpenApiEventsError | SpecEventFieldsError} when a document lacks what the catalog needs;
 *   file system errors as they come.
 * @example
 * ```ts
 * const text = await generateEventCatalog({ openApiPath: '../shared/atlas/openapi-v2.yaml', specPath });
 * ```
 */
export async function generateEventCatalog(options: GenerateEventCatalogOptions): Promise<string> {
  const [openApiText, specText] = await Promise.all([
    readFile(options.openApiPath, 'utf8'),
    readFile(options.specPath, 'utf8'),
  ]);
  // The Atlas document is about 4 MB; it uses no aliases, so any count is a sign of a wrong file.
  const document: unknown = parse(openApiText, { maxAliasCount: 100 });
  const info = (document as { info?: { title?: unknown; version?: unknown } } | null)?.info;
  const title = typeof info?.title === 'string' ? info.title : 'OpenAPI document';
  const version = typeof info?.version === 'string' ? ` ${info.version}` : '';
  const data = buildEventCatalogData({
    openApi: readOpenApiEvents({ document }),
    spec: readSpecEventFields(specText),
    inventory: inventoryEventFields(),
    accessHistory: accessHistoryEventFields(),
    auditLog: auditLogEventFields(),
    sources: [
      `${basename(options.openApiPath)}: ${title}${version}`,
      basename(options.specPath),
      'shared/rules/inventory-events.ts',
      'shared/rules/access-history-events.ts',
      'shared/audit-log/audit-log-events.ts',
    ],
  });
  return formatEventCatalogData(data);
}
