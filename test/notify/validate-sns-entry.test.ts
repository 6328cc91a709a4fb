import type { PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { InvalidSnsEntryError } from '../../shared/notify/errors.js';
import { buildSnsEntry, type SnsEntry } from '../../shared/notify/sns-entry.js';
import { assertValidSnsEntry, validateSnsEntry } from '../../shared/notify/validate-sns-entry.js';
import { makeAlert, NOW } from './support/alerts.js';

function validEntry(): SnsEntry {
  return buildSnsEntry(makeAlert(), { id: 'alert-0', context: { now: NOW } });
}

/** The valid entry with its Chatbot notification changed by `change`. */
function withNotification(change: (notification: Record<string, unknown>) => void): PublishBatchRequestEntry {
  const entry = validEntry();
  const body = JSON.parse(entry.Message);
  const notification = JSON.parse(body.default);
  change(notification);
  return { ...entry, Message: JSON.stringify({ ...body, default: JSON.stringify(notification) }) };
}

function problemsOf(entry: PublishBatchRequestEntry): string[] {
  const result = validateSnsEntry(entry);
  return result.valid ? [] : result.problems;
}

describe('validateSnsEntry', () => {
  it('accepts an entry built by buildSnsEntry', () => {
    // Prepare
    const entry = validEntry();

    // Act
    const result = validateSnsEntry(entry);

    // Assess
    expect(result).toEqual({ valid: true });
  });

  it.each([
    ['too long', `[HIGH] ${'x'.repeat(93)}`, 'Subject is 100 characters long; SNS takes fewer than 100'],
    [
      'with a line break',
      '[HIGH] two\nlines',
      'Subject must be printable ASCII: no line breaks, control characters or other scripts',
    ],
    [
      'with a control character',
      '[HIGH] bell\u0007',
      'Subject must be printable ASCII: no line breaks, control characters or other scripts',
    ],
    [
      'with non-ASCII text',
      '[HIGH] Jürgen',
      'Subject must be printable ASCII: no line breaks, control characters or other scripts',
    ],
    ['without the severity', 'Key created', 'Subject must start with the severity, such as "[CRITICAL] "'],
    ['empty', '', 'Subject is missing'],
  ])('reports a subject %s', (_, subject, problem) => {
    // Prepare
    const entry = { ...validEntry(), Subject: subject };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toContain(problem);
  });

  it('reports a subject whose severity disagrees with the attribute', () => {
    // Prepare
    const entry = { ...validEntry(), Subject: '[LOW] Project IP access list open to 0.0.0.0/0' };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['Subject says LOW but attribute "severity" says critical']);
  });

  it.each([
    [{ DataType: 'String', StringValue: 'impact' }, 'attribute "tags" must have DataType "String.Array"'],
    [
      { DataType: 'String.Array', StringValue: 'impact' },
      'attribute "tags" must be a JSON array of non-empty strings',
    ],
    [
      { DataType: 'String.Array', StringValue: '["impact", ""]' },
      'attribute "tags" must be a JSON array of non-empty strings',
    ],
    [
      { DataType: 'String.Array', StringValue: '[]' },
      'attribute "tags" must be a JSON array of non-empty strings',
    ],
    [{ DataType: 'String.Array', StringValue: '["impact"]' }, undefined],
  ])('checks the tags attribute %j', (tags, problem) => {
    // Prepare
    const valid = validEntry();
    const entry = { ...valid, MessageAttributes: { ...valid.MessageAttributes, tags } };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(problem === undefined ? [] : [problem]);
  });

  it('reports a String.Array on any attribute other than the tags', () => {
    // Prepare
    const valid = validEntry();
    const entry = {
      ...valid,
      MessageAttributes: {
        ...valid.MessageAttributes,
        groupName: { DataType: 'String.Array', StringValue: '["a"]' },
      },
    };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['attribute "groupName" must have DataType "String" or "Number"']);
  });

  it.each([
    ['', 'Id must be 1 to 80 characters of A-Z, a-z, 0-9, "-" and "_"'],
    ['has space', 'Id must be 1 to 80 characters of A-Z, a-z, 0-9, "-" and "_"'],
    ['a'.repeat(81), 'Id must be 1 to 80 characters of A-Z, a-z, 0-9, "-" and "_"'],
  ])('reports the entry id %j', (id, problem) => {
    // Prepare
    const entry = { ...validEntry(), Id: id };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual([problem]);
  });

  it('reports a message structure other than json', () => {
    // Prepare
    const entry: PublishBatchRequestEntry = { ...validEntry(), MessageStructure: 'string' };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['MessageStructure must be "json"']);
  });

  it.each([
    ['not JSON', '{"default": ', 'Message is not valid JSON, which MessageStructure "json" requires'],
    ['an array', '[]', 'Message must be a JSON object'],
    ['without default', '{"email":"hi"}', 'Message must have a "default" string, which SNS requires'],
    [
      'with a default that is not JSON',
      '{"default":"hi","email":"hi"}',
      'Message "default" must be the JSON of an AWS Chatbot custom notification',
    ],
    [
      'without email',
      `{"default":${JSON.stringify(JSON.stringify({ version: '1.0', source: 'custom', content: { description: 'd' } }))}}`,
      'Message must have a non-empty "email" text',
    ],
  ])('reports a message that is %s', (_, message, problem) => {
    // Prepare
    const entry = { ...validEntry(), Message: message };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toContain(problem);
  });

  it('reports a message key that no protocol reads', () => {
    // Prepare
    const entry = validEntry();
    const message = JSON.stringify({ ...JSON.parse(entry.Message), sms: 'hi' });

    // Act
    const problems = problemsOf({ ...entry, Message: message });

    // Assess
    expect(problems).toEqual(['Message has key "sms"; only "default" and "email" are sent']);
  });

  it.each([
    [
      'a wrong version',
      (n: Record<string, unknown>) => Object.assign(n, { version: '2.0' }),
      'Chatbot notification version',
    ],
    [
      'a wrong source',
      (n: Record<string, unknown>) => Object.assign(n, { source: 'aws.events' }),
      'Chatbot notification source',
    ],
    [
      'no description',
      (n: Record<string, unknown>) => Object.assign(n, { content: { title: 't' } }),
      'Chatbot notification content.description',
    ],
    [
      'a 251-character title',
      (n: Record<string, unknown>) =>
        Object.assign(n, { content: { title: 't'.repeat(251), description: 'd' } }),
      'Chatbot notification content.title',
    ],
    [
      'an 8,001-character description',
      (n: Record<string, unknown>) => Object.assign(n, { content: { description: 'd'.repeat(8_001) } }),
      'Chatbot notification content.description',
    ],
    [
      'another text type',
      (n: Record<string, unknown>) =>
        Object.assign(n, { content: { textType: 'markdown', description: 'd' } }),
      'Chatbot notification content.textType',
    ],
    [
      'an unknown key',
      (n: Record<string, unknown>) => Object.assign(n, { extra: true }),
      'Chatbot notification (root)',
    ],
    [
      'a non-string context value',
      (n: Record<string, unknown>) => Object.assign(n, { metadata: { additionalContext: { n: 1 } } }),
      'Chatbot notification metadata.additionalContext.n',
    ],
  ])('reports a Chatbot notification with %s', (_, change, problemStart) => {
    // Prepare
    const entry = withNotification(change);

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((problem) => problem.startsWith(problemStart))).toBe(true);
  });

  it.each([
    ['AWS.severity', 'attribute name "AWS.severity" breaks the SNS naming rules'],
    ['amazon.x', 'attribute name "amazon.x" breaks the SNS naming rules'],
    ['a..b', 'attribute name "a..b" breaks the SNS naming rules'],
    ['.lead', 'attribute name ".lead" breaks the SNS naming rules'],
    ['has space', 'attribute name "has space" breaks the SNS naming rules'],
    ['tenant', 'attribute "tenant" is not one this project sends'],
  ])('reports the attribute name %j', (name, problem) => {
    // Prepare
    const entry = validEntry();
    entry.MessageAttributes[name] = { DataType: 'String', StringValue: 'x' };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual([problem]);
  });

  it.each([
    [{ DataType: 'String', StringValue: '' }, 'attribute "groupId" must have a non-empty value'],
    [{ DataType: 'Binary', StringValue: 'x' }, 'attribute "groupId" must have DataType "String" or "Number"'],
    [
      { DataType: 'String', StringValue: 'a\u0001b' },
      'attribute "groupId" holds characters SNS or its subscribers reject',
    ],
    [
      { DataType: 'String', StringValue: 'lone \uD800' },
      'attribute "groupId" holds characters SNS or its subscribers reject',
    ],
    [
      { DataType: 'String', StringValue: 'x'.repeat(257) },
      'attribute "groupId" is longer than 256 characters',
    ],
    [
      { DataType: 'Number', StringValue: 'five' },
      'attribute "groupId" has DataType "Number" but its value is not a number',
    ],
  ])('reports the attribute value %j', (value, problem) => {
    // Prepare
    const entry = validEntry();
    entry.MessageAttributes.groupId = value;

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual([problem]);
  });

  it('reports a severity rank that disagrees with the severity', () => {
    // Prepare
    const entry = validEntry();
    entry.MessageAttributes.severityRank = { DataType: 'Number', StringValue: '4' };

    // Act
    const problems = problemsOf(entry);

    // Assess
    expect(problems).toEqual(['attribute "severityRank" must be 5 for severity critical']);
  });

  it('reports missing required attributes and more than ten attributes', () => {
    // Prepare
    const entry = validEntry();
    const attributes = Object.fromEntries(
      Array.from({ length: 11 }, (_, index) => [`x${index}`, { DataType: 'String', StringValue: 'v' }]),
    );

    // Act
    const problems = problemsOf({ ...entry, MessageAttributes: attributes });

    // Assess
    expect(problems).toContain('there are 11 message attributes; SNS takes at most 10');
    expect(problems).toContain('attribute "severity" is missing');
    expect(problems).toContain('attribute "severityRank" is missing');
    expect(problems).toContain('attribute "ruleId" is missing');
  });

  it('reports an entry over the byte limit, counting attributes and subject', () => {
    // Prepare
    const entry = validEntry();
    const bytes = Buffer.byteLength(entry.Message) + Buffer.byteLength(entry.Subject);

    // Act
    const result = validateSnsEntry(entry, { maxBytes: bytes });

    // Assess
    expect(result.valid).toBe(false);
    expect(result.valid ? [] : result.problems[0]).toMatch(
      /^the entry takes \d+ bytes; SNS takes at most \d+$/,
    );
  });
});

describe('assertValidSnsEntry', () => {
  it('throws an error with a stable code and every problem', () => {
    // Prepare
    const entry = { ...validEntry(), Subject: 'no severity\n', MessageStructure: 'string' };

    // Act
    const act = (): void => assertValidSnsEntry(entry);

    // Assess
    expect(act).toThrow(InvalidSnsEntryError);
    try {
      act();
    } catch (error) {
      expect(error).toMatchObject({ code: 'NOTIFY_ENTRY_INVALID', name: 'InvalidSnsEntryError' });
      expect((error as InvalidSnsEntryError).problems).toHaveLength(3);
    }
  });
});
