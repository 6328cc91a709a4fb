import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { describeSettingIssue } from '../../shared/poll/index.js';

const schema = z.strictObject({
  scheduleMinutes: z.int().min(1).optional(),
  overlapSeconds: z.number().max(86_400).optional(),
  concurrency: z.number().max(32).optional(),
  orgIds: z
    .array(z.string().regex(/^[0-9a-f]{24}$/, 'must be a 24-character hexadecimal Atlas id'))
    .optional(),
});

function problemsOf(input: unknown): string[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('the settings were accepted');
  return result.error.issues.flatMap((issue) =>
    describeSettingIssue(issue, input).map((problem) => `${problem.path.join('.')}: ${problem.message}`),
  );
}

describe('describeSettingIssue', () => {
  it('words zod default messages as the rule loader does, with the unit a setting is named for', () => {
    // Act
    const problems = problemsOf({ scheduleMinutes: 0, overlapSeconds: 100_000, concurrency: '4' });

    // Assess
    expect(problems).toEqual([
      'scheduleMinutes: must be at least 1 minute',
      'overlapSeconds: must be at most 86400 seconds',
      'concurrency: expected a number, found the string "4"',
    ]);
  });

  it('keeps the messages the schema gives itself', () => {
    // Act
    const problems = problemsOf({ orgIds: ['acme'] });

    // Assess
    expect(problems).toEqual(['orgIds.0: must be a 24-character hexadecimal Atlas id']);
  });
});
