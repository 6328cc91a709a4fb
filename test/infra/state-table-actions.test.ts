import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATE_TABLE_ACTIONS } from '../../infra/constructs/poller-function.js';

const stateDirectory = join(import.meta.dirname, '../../shared/state');

/**
 * Operations only `atlas-audit-alerts status` sends, with the operator's own AWS credentials: the
 * `Scan` of `listSourceReports`, which no tick calls.
 */
const OPERATOR_ONLY = new Set(['Scan']);

/** The DynamoDB operations the requester sends for a tick, by the names it gives them. */
function requesterOperations(): string[] {
  const source = readFileSync(join(stateDirectory, 'dynamodb-requester.ts'), 'utf8');
  return [...source.matchAll(/#send\('([A-Za-z]+)'/g)]
    .map((match) => match[1] as string)
    .filter((operation) => !OPERATOR_ONLY.has(operation));
}

/** The kinds of item the state store's transactions hold (`Put`, `Update`, `Delete`, `ConditionCheck`). */
function transactionItemKinds(): string[] {
  const kinds = new Set<string>();
  for (const file of readdirSync(stateDirectory).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(join(stateDirectory, file), 'utf8');
    for (const match of source.matchAll(/^\s+(Put|Update|Delete|ConditionCheck): \{/gm)) {
      kinds.add(match[1] as string);
    }
  }
  return [...kinds];
}

/** The IAM action that authorises each transaction item kind. */
const ITEM_ACTION: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

describe('the state table actions the poller role is granted', () => {
  it('cover every operation the DynamoDB requester sends for a tick', () => {
    const operations = requesterOperations();

    expect(operations).toEqual(expect.arrayContaining(['GetItem', 'BatchGetItem', 'TransactWriteItems']));
    const needed = operations
      .filter((operation) => operation !== 'TransactWriteItems')
      .map((operation) => `dynamodb:${operation}`);
    expect(STATE_TABLE_ACTIONS).toEqual(expect.arrayContaining(needed));
  });

  it('cover every kind of item the transactions hold, which IAM authorises item by item', () => {
    const kinds = transactionItemKinds();

    expect(kinds.length).toBeGreaterThan(0);
    expect(STATE_TABLE_ACTIONS).toEqual(expect.arrayContaining(kinds.map((kind) => ITEM_ACTION[kind])));
  });

  it('grant nothing a tick never sends, the scan of status included', () => {
    const sent = new Set([
      ...requesterOperations().map((operation) => `dynamodb:${operation}`),
      ...transactionItemKinds().map((kind) => ITEM_ACTION[kind]),
    ]);

    expect(STATE_TABLE_ACTIONS.filter((action) => !sent.has(action))).toEqual([]);
    expect(STATE_TABLE_ACTIONS).not.toContain('dynamodb:Scan');
  });
});
