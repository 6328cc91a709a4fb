import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadRulePack, parseRuleLayers, parseRulePack } from '../../../shared/rules/index.js';
import {
  lintRulePack,
  loadEventCatalog,
  RuleSources,
  type RuleWarning,
  splitWarnings,
} from '../../../shared/rules/lint/index.js';
import { formatRuleWarnings } from '../../../shared/rules/problem-format.js';

const BUILT_IN_RULES = fileURLToPath(new URL('../../../rules/', import.meta.url));

/** The warnings of rule files given as text. */
function warningsOf(...sources: { file: string; text: string }[]): RuleWarning[] {
  const pack = parseRulePack({ sources });
  return lintRulePack(pack, { catalog: loadEventCatalog(), sources: new RuleSources(sources) });
}

/** One rule, lines joined; `match` lines are indented for the match block. */
function rule(options: { match: string[]; title?: string; extra?: string[]; id?: string }): string {
  return [
    `  - id: ${options.id ?? 'sample'}`,
    '    name: Sample',
    '    severity: medium',
    '    match:',
    ...options.match.map((line) => `      ${line}`),
    `    title: '${options.title ?? 'Project {{groupId}} changed'}'`,
    ...(options.extra ?? []),
  ].join('\n');
}

function file(...parts: string[]): { file: string; text: string } {
  return { file: 'mine.yaml', text: `${parts.join('\n')}\n` };
}

/** What a test checks of a warning: code, place and words. */
function summary(warning: RuleWarning) {
  return {
    code: warning.code,
    file: warning.file,
    line: warning.line,
    column: warning.column,
    message: warning.message,
    hint: warning.hint,
  };
}

describe('lintRulePack', () => {
  it('warns about an event type name the catalog does not know, with a did you mean', () => {
    const warnings = warningsOf(
      file('rules:', rule({ match: ['eventTypeName: NETWORK_PERMISSION_ENTRY_ADDDED'] })),
    );

    expect(warnings.map(summary)).toEqual([
      {
        code: 'UNKNOWN_EVENT_TYPE',
        file: 'mine.yaml',
        line: 6,
        column: 22,
        message:
          '"NETWORK_PERMISSION_ENTRY_ADDDED" is not a known Atlas event type, so no event will match it',
        hint: 'did you mean "NETWORK_PERMISSION_ENTRY_ADDED"?',
      },
    ]);
  });

  it('checks event type names in lists, in and not_in, and in the named lists they use', () => {
    const warnings = warningsOf(
      file(
        'lists:',
        '  watched_types:',
        '    - GROUP_DELETED',
        '    - GROUP_DELETD',
        'rules:',
        rule({ id: 'a', match: ['eventTypeName: [GROUP_CREATED, GROUP_CRATED]'] }),
        rule({ id: 'b', match: ['eventTypeName: { in: { list: watched_types } }'] }),
        rule({ id: 'c', match: ['eventTypeName: { not_in: [ALERT_ACKNOWLEDGED_AUDT] }'] }),
        rule({ id: 'd', match: ['eventTypeName: { equals: group_deleted, ignore_case: true }'] }),
      ),
    );

    expect(warnings.map((warning) => [warning.line, warning.column, warning.hint])).toEqual([
      [4, 7, 'did you mean "GROUP_DELETED"?'],
      [10, 38, 'did you mean "GROUP_CREATED"?'],
      [22, 33, 'did you mean "ALERT_ACKNOWLEDGED_AUDIT"?'],
    ]);
    expect(warnings.every((warning) => warning.code === 'UNKNOWN_EVENT_TYPE')).toBe(true);
  });

  it('warns about a field no event of the matched types carries, at its key, with a did you mean', () => {
    const warnings = warningsOf(
      file('rules:', rule({ match: ['eventTypeName: GROUP_DELETED', 'usernmae: bob@example.com'] })),
    );

    expect(warnings.map(summary)).toEqual([
      {
        code: 'UNKNOWN_FIELD',
        file: 'mine.yaml',
        line: 7,
        column: 7,
        message:
          'no known event of type GROUP_DELETED carries the field "usernmae": this condition never sees a value',
        hint: 'did you mean "username"?',
      },
    ]);
  });

  it('knows the fields of the database access events, and warns about ipAddress on them', () => {
    const warnings = warningsOf(
      file(
        'rules:',
        rule({
          id: 'known',
          match: [
            'eventTypeName: [DB_AUTH_FAILED, DB_AUTH_SUCCEEDED]',
            'username: root',
            'authSource: admin',
            'remoteAddress: { cidr_in: [203.0.113.0/24] }',
          ],
        }),
        rule({
          id: 'reason',
          match: ['eventTypeName: DB_AUTH_FAILED', 'failureReason: { starts_with: UserNotFound }'],
        }),
        rule({ id: 'address', match: ['eventTypeName: DB_AUTH_FAILED', 'ipAddress: 203.0.113.9'] }),
      ),
    );

    expect(warnings.map((warning) => [warning.code, warning.line, warning.message])).toEqual([
      [
        'UNKNOWN_FIELD',
        23,
        'no known event of type DB_AUTH_FAILED carries the field "ipAddress": this condition never sees a value',
      ],
    ]);
  });

  it('judges each any branch by its own event types, and fields under not by the enclosing ones', () => {
    const warnings = warningsOf(
      file(
        'rules:',
        rule({
          match: [
            'any:',
            '  - { eventTypeName: DATA_EXPLORER, opType: find }',
            '  - { eventTypeName: GROUP_DELETED, opType: find }',
            'not: { eventTypeName: DATA_EXPLORER, whitelistEntry: 0.0.0.0/0 }',
          ],
        }),
      ),
    );

    expect(warnings.map((warning) => [warning.code, warning.line, warning.column, warning.message])).toEqual([
      [
        'UNKNOWN_FIELD',
        8,
        43,
        'no known event of type GROUP_DELETED carries the field "opType": this condition never sees a value',
      ],
      [
        'UNKNOWN_FIELD',
        9,
        44,
        'no known event of types DATA_EXPLORER, GROUP_DELETED carries the field "whitelistEntry": this condition never sees a value',
      ],
    ]);
  });

  it('knows raw.*, the implemented API document and the inventory event shapes', () => {
    const warnings = warningsOf(
      file(
        'rules:',
        rule({
          id: 'a',
          match: ['eventTypeName: GROUP_DELETED', 'raw.cid: x', 'accessListEntry: { exists: true }'],
        }),
        rule({
          id: 'b',
          match: ['eventTypeName: INVENTORY_API_KEY_ROLES_CHANGED', 'rolesAdded[].roleName: ORG_OWNER'],
          title: 'Key {{targetPublicKey}} now {{rolesAfter[].roleName}}',
        }),
        rule({ id: 'c', match: ['eventTypeName: AUTOMATION_CONFIG_PUBLISHED_AUDIT', 'diffs[].type: USERS'] }),
      ),
    );

    expect(warnings).toEqual([]);
  });

  it('warns about a field of group_by and a template placeholder no matched event carries', () => {
    const warnings = warningsOf(
      file(
        'rules:',
        rule({
          match: ['eventTypeName: GROUP_DELETED'],
          title: 'Project {{groupId}} deleted by {{usernmae | "someone"}}',
          extra: ['    group_by: [groupId, clusterNmae]'],
        }),
      ),
    );

    expect(warnings.map(summary)).toEqual([
      {
        code: 'UNKNOWN_TEMPLATE_FIELD',
        file: 'mine.yaml',
        line: 7,
        column: 44,
        message:
          'no known event of type GROUP_DELETED carries the field "usernmae", so {{usernmae | "someone"}} in the title never shows it',
        hint: 'did you mean "username"?',
      },
      {
        code: 'UNKNOWN_FIELD',
        file: 'mine.yaml',
        line: 8,
        column: 25,
        message:
          'no known event of type GROUP_DELETED carries the field "clusterNmae": every event falls in the same group',
        hint: 'did you mean "clusterName"?',
      },
    ]);
  });

  it('warns about a field of a roll-up key no matched event carries', () => {
    const warnings = warningsOf(
      file(
        'rules:',
        rule({
          match: ['eventTypeName: GROUP_DELETED'],
          extra: ['    group_by: [groupId]', '    suppress: { for: 1d, key: [usernmae] }'],
        }),
      ),
    );

    expect(warnings.map(summary)).toEqual([
      {
        code: 'UNKNOWN_FIELD',
        file: 'mine.yaml',
        line: 9,
        column: 32,
        message:
          'no known event of type GROUP_DELETED carries the field "usernmae": every occurrence falls under the same roll-up key',
        hint: 'did you mean "username"?',
      },
    ]);
  });

  it('warns about a list no rule uses, at its name', () => {
    const warnings = warningsOf(
      file(
        'lists:',
        '  office_ranges: [192.0.2.0/24]',
        'rules:',
        rule({ match: ['eventTypeName: GROUP_DELETED'] }),
      ),
    );

    expect(warnings.map(summary)).toEqual([
      {
        code: 'UNUSED_LIST',
        file: 'mine.yaml',
        line: 2,
        column: 3,
        message: 'list "office_ranges" is defined but no rule uses it',
        hint: 'use it in a rule as {list: office_ranges}, or remove it',
      },
    ]);
  });

  it('takes list_empty for a use of its list, not for a field', () => {
    const warnings = warningsOf(
      file(
        'lists:',
        '  trusted_email_domains: []',
        'rules:',
        rule({ match: ['eventTypeName: INVITED_TO_ORG', 'list_empty: trusted_email_domains'] }),
      ),
    );

    expect(warnings.map(summary)).toEqual([]);
  });

  it('warns about CIDR blocks with host bits set, inline and in a list used by cidr_in', () => {
    const warnings = warningsOf(
      file(
        'lists:',
        '  office_ranges: [198.51.100.0/24, 192.0.2.5/24]',
        'rules:',
        rule({
          match: [
            'eventTypeName: NETWORK_PERMISSION_ENTRY_ADDED',
            'whitelistEntry: { not: { cidr_in: { list: office_ranges } } }',
            'remoteAddress: { cidr_in: [10.0.0.0/8, "2001:db8::1/32"] }',
          ],
        }),
      ),
    );

    expect(warnings.map(summary)).toEqual([
      {
        code: 'CIDR_HOST_BITS',
        file: 'mine.yaml',
        line: 2,
        column: 36,
        message:
          '"192.0.2.5/24" (in list "office_ranges") has host bits set: it is read as 192.0.2.0/24, all 256 addresses',
        hint: 'write 192.0.2.0/24 for the whole block, or 192.0.2.5/32 for that one address',
      },
      {
        code: 'CIDR_HOST_BITS',
        file: 'mine.yaml',
        line: 10,
        column: 46,
        message: '"2001:db8::1/32" has host bits set: it is read as 2001:db8::/32, a /32 block',
        hint: 'write 2001:db8::/32 for the whole block, or 2001:db8::1/128 for that one address',
      },
    ]);
  });

  it('accepts a field or event type a rule names in a lint-allow comment', () => {
    const warnings = warningsOf(
      file(
        'rules:',
        rule({
          match: [
            '# lint-allow UNKNOWN_FIELD whitelistEntry: this type carries it though the schema does not say so',
            '# lint-allow UNKNOWN_EVENT_TYPE BRAND_NEW_TYPE',
            'eventTypeName: [SERVICE_ACCOUNT_ACCESS_LIST_ENTRY_ADDED, BRAND_NEW_TYPE]',
            'whitelistEntry: { exists: true }',
          ],
          title: 'Entry {{whitelistEntry}}',
        }),
      ),
    );

    expect(warnings).toEqual([]);
  });

  it('checks the fields and event types of exceptions where they are written: a rule’s, an override’s and a layer’s', () => {
    const base = file(
      'rules:',
      rule({
        id: 'deleted',
        match: ['eventTypeName: MONGODB_USER_DELETED'],
        extra: ['    exceptions:', '      - { usrname: ci@example.com }'],
      }),
      rule({ id: 'created', match: ['eventTypeName: MONGODB_USER_ADDED'] }),
    );
    const tuning = {
      file: 'mine/tuning.yaml',
      text: [
        'overrides:',
        '  - rule: created',
        '    exceptions:',
        '      - { dbUserUsernme: tmp }',
        'exceptions:',
        '  - name: ci',
        '    match: { eventTypeName: MONGODB_USER_DELETD, username: ci@example.com }',
        '  - name: everyone',
        '    match: { usrname: ci@example.com }',
        '  - name: a new type',
        '    # lint-allow UNKNOWN_EVENT_TYPE BRAND_NEW_TYPE: newer than the catalog',
        '    match: { eventTypeName: BRAND_NEW_TYPE }',
        '',
      ].join('\n'),
    };
    const pack = parseRuleLayers({
      layers: [
        { name: 'builtin', builtin: true, sources: [base] },
        { name: 'mine', sources: [tuning] },
      ],
    });

    const warnings = lintRulePack(pack, {
      catalog: loadEventCatalog(),
      sources: new RuleSources([base, tuning]),
    });

    expect(
      warnings.map((warning) => [warning.code, warning.file, warning.line, warning.column, warning.hint]),
    ).toEqual([
      ['UNKNOWN_FIELD', 'mine.yaml', 9, 11, 'did you mean "username"?'],
      ['UNKNOWN_FIELD', 'mine/tuning.yaml', 4, 11, 'did you mean "dbUserUsername"?'],
      ['UNKNOWN_EVENT_TYPE', 'mine/tuning.yaml', 7, 29, 'did you mean "MONGODB_USER_DELETED"?'],
      ['UNKNOWN_FIELD', 'mine/tuning.yaml', 9, 14, 'did you mean "username"?'],
    ]);
  });

  it('gives warnings document paths when the files are not at hand', () => {
    const sources = [file('rules:', rule({ match: ['eventTypeName: GROUP_DELETD'] }))];
    const pack = parseRulePack({ sources });

    const warnings = lintRulePack(pack, { catalog: loadEventCatalog() });

    expect(warnings.map((warning) => [warning.path, warning.line])).toEqual([
      [['rules', 0, 'match', 'eventTypeName'], undefined],
    ]);
  });

  it('prints warnings as errors are printed, marked warning, with the hint under the caret', () => {
    const warnings = warningsOf(file('rules:', rule({ match: ['eventTypeName: GROUP_DELETD'] })));

    expect(formatRuleWarnings(warnings)).toBe(
      [
        'mine.yaml:6:22: warning: "GROUP_DELETD" is not a known Atlas event type, so no event will match it [UNKNOWN_EVENT_TYPE]',
        ' 6 |       eventTypeName: GROUP_DELETD',
        '   |                      ^^^^^^^^^^^^',
        '   = hint: did you mean "GROUP_DELETED"?',
      ].join('\n'),
    );
  });

  it('finds nothing to warn about in the default rule pack', async () => {
    const pack = await loadRulePack({ paths: [BUILT_IN_RULES] });

    const warnings = lintRulePack(pack, {
      catalog: loadEventCatalog(),
      sources: RuleSources.read(pack.files),
    });

    expect(formatRuleWarnings(warnings)).toBe('');
  });
});

describe('splitWarnings', () => {
  const base = file('rules:', rule({ id: 'base', match: ['eventTypeName: GROUP_DELETD'] }));
  const mine = {
    file: 'mine/a.yaml',
    text: [
      'lists:',
      '  unused: [a]',
      'rules:',
      rule({ id: 'mine', match: ['eventTypeName: GROUP_CRATED'] }),
      '',
    ].join('\n'),
  };
  const pack = parseRuleLayers({
    layers: [
      { name: 'builtin', builtin: true, sources: [base] },
      { name: 'mine', sources: [mine] },
    ],
  });
  const warnings = [
    ...pack.warnings,
    ...lintRulePack(pack, { catalog: loadEventCatalog(), sources: new RuleSources([base, mine]) }),
  ];
  const codes = (found: RuleWarning[]) => found.map((warning) => `${warning.file} ${warning.code}`).sort();

  it('makes unknown names of user layers errors by default, and leaves the rest warnings', () => {
    const { errors, warnings: shown } = splitWarnings({ pack, warnings });

    expect(codes(errors)).toEqual(['mine/a.yaml UNKNOWN_EVENT_TYPE']);
    expect(errors.every((error) => !('severity' in error))).toBe(true);
    expect(codes(shown)).toEqual([
      'mine.yaml UNKNOWN_EVENT_TYPE',
      'mine/a.yaml UNTESTED_RULE',
      'mine/a.yaml UNUSED_LIST',
    ]);
    expect(shown.every((warning) => warning.severity === 'warning')).toBe(true);
  });

  it('makes every warning an error when strict, and none when not', () => {
    expect(splitWarnings({ pack, warnings, strict: true }).errors).toHaveLength(warnings.length);
    expect(splitWarnings({ pack, warnings, strict: false }).errors).toEqual([]);
  });
});
