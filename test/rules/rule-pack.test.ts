import { describe, expect, it } from 'vitest';
import { RuleLoadError } from '../../shared/rules/errors.js';
import {
  deserializeRulePack,
  SERIALIZED_PACK_FILE,
  serializeRulePack,
} from '../../shared/rules/rule-pack.js';
import { packOf, ruleFile } from './rule-files.js';

const text = `lists:\n  destructive_ops: [deleteDocument]\n${ruleFile({
  match: '      opType: { in: { list: destructive_ops } }',
  extra:
    '    tests:\n      - name: t\n        event: { opType: deleteDocument }\n        expect: { alert: true }',
})}`;

describe('serializeRulePack', () => {
  it('gives a JSON-safe pack without inline tests', () => {
    const serialized = serializeRulePack(packOf(text));

    expect(JSON.parse(JSON.stringify(serialized))).toEqual(serialized);
    expect(serialized).toMatchObject({ format: 'atlas-audit-alerts.rule-pack', version: 3 });
    expect(serialized.lists).toEqual({ destructive_ops: ['deleteDocument'] });
    expect(serialized.rules[0]).not.toHaveProperty('tests');
  });
});

describe('deserializeRulePack', () => {
  it('reads back the rules and lists of a serialized pack', () => {
    const pack = packOf(text);

    const restored = deserializeRulePack(JSON.parse(JSON.stringify(serializeRulePack(pack))));

    expect(restored.rules.map((rule) => rule.spec.id)).toEqual(['sample-rule']);
    expect(restored.lists.get('destructive_ops')).toEqual(['deleteDocument']);
  });

  it('refuses a pack edited into something invalid, naming the document path', () => {
    const serialized = serializeRulePack(packOf(text));
    const edited = JSON.parse(JSON.stringify(serialized));
    edited.rules[0].match.opType = { regex: '(a)\\1' };

    const error = (() => {
      try {
        deserializeRulePack(edited);
      } catch (caught) {
        return caught;
      }
    })();

    expect(error).toBeInstanceOf(RuleLoadError);
    expect((error as RuleLoadError).problems).toMatchObject([
      {
        code: 'UNSUPPORTED_REGEX',
        file: SERIALIZED_PACK_FILE,
        path: ['rules', 0, 'match', 'opType', 'regex'],
      },
    ]);
    expect((error as Error).message).toContain('<serialized rule pack> rules[0].match.opType.regex:');
  });

  it('refuses an exception whose scope is not in the pack, naming it', () => {
    const serialized = serializeRulePack(packOf(text));
    const edited = {
      ...JSON.parse(JSON.stringify(serialized)),
      exceptions: [{ name: 'ci', scope: 2, match: { username: 'ci-bot' } }],
    };

    expect(() => deserializeRulePack(edited)).toThrow(
      '<serialized rule pack> exceptions[0].scope: scope 2 is not one of the 0 exceptionScopes',
    );
  });

  it('refuses something that is not a serialized pack', () => {
    expect(() => deserializeRulePack({ rules: [] })).toThrow(RuleLoadError);
  });
});
