import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { snsEntryBytes } from '../../shared/notify/entry-size.js';
import { buildSnsEntry, type SnsEntry } from '../../shared/notify/sns-entry.js';
import { assertValidSnsEntry, validateSnsEntry } from '../../shared/notify/validate-sns-entry.js';
import { makeAlert, NOW } from './support/alerts.js';

function validEntry(): SnsEntry {
  return buildSnsEntry(makeAlert(), { id: 'alert-0', context: { now: NOW } });
}

function problemsOf(entry: PublishBatchRequestEntry, maxBytes?: number): string[] {
  const result = validateSnsEntry(entry, maxBytes === undefined ? {} : { maxBytes });
  return result.valid ? [] : result.problems;
}

function messageWith(change: (body: Record<string, unknown>) => void): string {
  const body = JSON.parse(validEntry().Message);
  change(body);
  return JSON.stringify(body);
}

describe('validateSnsEntry edges', () => {
  it('reports a missing entry id', () => {
    // Prepare
    const entry: PublishBatchRequestEntry = { ...validEntry(), Id: undefined as unknown as string };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['Id must be 1 to 80 characters of A-Z, a-z, 0-9, "-" and "_"']);
  });

  it('accepts an entry of exactly the byte limit and reports one byte less', () => {
    // Prepare
    const entry = validEntry();
    const bytes = snsEntryBytes(entry);

    // Act
    const atLimit = problemsOf(entry, bytes);
    const below = problemsOf(entry, bytes - 1);

    // Assess
    expect(atLimit).toEqual([]);
    expect(below).toEqual([`the entry takes ${bytes} bytes; SNS takes at most ${bytes - 1}`]);
  });

  it('does not size an entry that already breaks another rule', () => {
    // Prepare
    const entry = { ...validEntry(), Id: 'has space' };

    // Act
    const problems = problemsOf(entry, 1);

    // Assess
    expect(problems).toEqual(['Id must be 1 to 80 characters of A-Z, a-z, 0-9, "-" and "_"']);
  });

  it('reports a missing subject without throwing', () => {
    // Prepare
    const entry: PublishBatchRequestEntry = { ...validEntry(), Subject: undefined };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['Subject is missing']);
  });

  it('accepts a subject of exactly 99 characters', () => {
    // Prepare
    const entry = { ...validEntry(), Subject: `[CRITICAL] ${'x'.repeat(88)}` };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual([]);
  });

  it('reports a missing message without throwing', () => {
    // Prepare
    const entry: PublishBatchRequestEntry = { ...validEntry(), Message: undefined as unknown as string };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['Message is missing']);
  });

  it.each(['null', '5', '"text"'])(
    'reports the message %s as not an object, and nothing else about it',
    (message) => {
      // Prepare
      const entry = { ...validEntry(), Message: message };

      // Act
      const problems = problemsOf(entry);

      // Assess
      expect(problems).toEqual(['Message must be a JSON object']);
    },
  );

  it('shows at most 40 characters of an unknown message key', () => {
    // Prepare
    const key = `${'k'.repeat(40)}tail`;
    const entry = { ...validEntry(), Message: messageWith((body) => Object.assign(body, { [key]: 'x' })) };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual([`Message has key "${'k'.repeat(40)}"; only "default" and "email" are sent`]);
  });

  it('reports an email text of white space only', () => {
    // Prepare
    const entry = {
      ...validEntry(),
      Message: messageWith((body) => Object.assign(body, { email: '  \n ' })),
    };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['Message must have a non-empty "email" text']);
  });

  it('lists at most ten problems of a Chatbot notification', () => {
    // Prepare
    const entry = {
      ...validEntry(),
      Message: messageWith((body) => {
        const notification = JSON.parse(body.default as string);
        const context = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`n${index}`, index]));
        notification.metadata = { additionalContext: context };
        body.default = JSON.stringify(notification);
      }),
    };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toHaveLength(10);
    expect(
      problems.every((problem) => problem.startsWith('Chatbot notification metadata.additionalContext.n')),
    ).toBe(true);
  });

  it.each([undefined, null, 'severity=high'])(
    'reports message attributes given as %j without throwing',
    (value) => {
      // Prepare
      const entry = { ...validEntry(), MessageAttributes: value as unknown as SnsEntry['MessageAttributes'] };

      // Act
      const problems = problemsOf(entry);

      // Assess
      expect(problems).toEqual(['MessageAttributes are missing']);
    },
  );

  it('accepts exactly ten attributes as far as their number goes', () => {
    // Prepare
    const entry = validEntry();
    const count = Object.keys(entry.MessageAttributes).length;
    for (let index = count; index < 10; index++) {
      entry.MessageAttributes[`x${index}`] = { DataType: 'String', StringValue: 'v' };
    }

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems.some((problem) => problem.startsWith('there are'))).toBe(false);
  });

  it('shows at most 60 characters of an attribute name', () => {
    // Prepare
    const entry = validEntry();
    entry.MessageAttributes[`${'a'.repeat(60)}tail`] = { DataType: 'String', StringValue: 'v' };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual([`attribute "${'a'.repeat(60)}" is not one this project sends`]);
  });

  it('reports an attribute without a value without throwing', () => {
    // Prepare
    const entry = validEntry();
    entry.MessageAttributes.groupId = { DataType: 'String' };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['attribute "groupId" must have a non-empty value']);
  });

  it('accepts an attribute value of exactly 256 characters', () => {
    // Prepare
    const entry = validEntry();
    entry.MessageAttributes.groupId = { DataType: 'String', StringValue: 'x'.repeat(256) };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual([]);
  });

  it('reports a severity that is not one of the five', () => {
    // Prepare
    const entry = validEntry();
    entry.MessageAttributes.severity = { DataType: 'String', StringValue: 'urgent' };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['attribute "severity" must be one of info, low, medium, high, critical']);
  });

  it('reports a missing severity once', () => {
    // Prepare
    const entry = validEntry();
    delete (entry.MessageAttributes as Record<string, unknown>).severity;

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['attribute "severity" is missing']);
  });

  it('reports a missing severity rank once', () => {
    // Prepare
    const entry = validEntry();
    delete (entry.MessageAttributes as Record<string, unknown>).severityRank;

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['attribute "severityRank" is missing']);
  });

  it.each([
    ['trail.', 'attribute name "trail." breaks the SNS naming rules'],
    ['x.aws.y', 'attribute "x.aws.y" is not one this project sends'],
  ])('reads the attribute name %j by the SNS naming rules', (name, problem) => {
    // Prepare
    const entry = validEntry();
    entry.MessageAttributes[name] = { DataType: 'String', StringValue: 'x' };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual([problem]);
  });
});

describe('assertValidSnsEntry', () => {
  it('returns for a valid entry', () => {
    // Prepare
    const entry = validEntry();

    // Act
    const act = (): void => assertValidSnsEntry(entry);

    // Assess
    expect(act).not.toThrow();
  });

  it('names the entry by at most 80 characters of its id and lists the problems', () => {
    // Prepare
    const entry = { ...validEntry(), Id: 'a'.repeat(100), MessageStructure: 'string' };

    // Act
    const act = (): void => assertValidSnsEntry(entry);

    // Assess
    expect(act).toThrow(
      `SNS entry "${'a'.repeat(80)}" is invalid: Id must be 1 to 80 characters of A-Z, a-z, 0-9, "-" and "_"; MessageStructure must be "json". Build entries with buildSnsEntry.`,
    );
  });
});
