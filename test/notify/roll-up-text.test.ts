import { describe, expect, it } from 'vitest';
import { formatChatbotNotification } from '../../shared/notify/chatbot-formatter.js';
import { formatEmailText } from '../../shared/notify/email-formatter.js';
import { describeRollUp } from '../../shared/notify/roll-up-text.js';
import { ATLAS_CONTEXT, makeAlert } from './support/alerts.js';

const RAISED = Date.parse('2026-11-22T10:14:03Z');
const at = (time: string): number => Date.parse(`2026-11-22T${time}Z`);

describe('describeRollUp', () => {
  it('says how many more were not sent one by one, between which times of the alert day', () => {
    const text = describeRollUp({ suppressed: 14, first: at('09:02:10'), last: at('09:58:59') }, RAISED);

    expect(text).toBe('and 14 more like it between 09:02 and 09:58 UTC were not sent one by one');
  });

  it('says one occurrence in the singular, at its time', () => {
    const text = describeRollUp({ suppressed: 1, first: at('09:02:10'), last: at('09:02:10') }, RAISED);

    expect(text).toBe('and 1 more like it at 09:02 UTC was not sent on its own');
  });

  it('gives the dates when the occurrences were not on the alert day', () => {
    const first = Date.parse('2026-11-20T23:59:00Z');

    const text = describeRollUp({ suppressed: 3, first, last: at('00:30:00') }, RAISED);

    expect(text).toBe(
      'and 3 more like it between 2026-11-20 23:59 and 2026-11-22 00:30 UTC were not sent one by one',
    );
  });

  it('says one time for occurrences within the same minute', () => {
    const text = describeRollUp({ suppressed: 5, first: at('09:02:01'), last: at('09:02:59') }, RAISED);

    expect(text).toBe('and 5 more like it at 09:02 UTC were not sent one by one');
  });
});

describe('an alert with a roll-up', () => {
  const alert = makeAlert({
    raisedAt: RAISED,
    rollUp: { suppressed: 14, first: at('09:02:10'), last: at('09:58:59') },
  });

  it('says its repeats in the email, next to the facts', () => {
    const email = formatEmailText(alert, { context: ATLAS_CONTEXT });

    expect(email).toContain(
      '\nRepeats:       and 14 more like it between 09:02 and 09:58 UTC were not sent one by one\n',
    );
  });

  it('says its repeats in the Slack message, right after the rule', () => {
    const { description } = formatChatbotNotification(alert, { context: ATLAS_CONTEXT }).content;

    const lines = description.split('\n');
    const rule = lines.findIndex((line) => line.startsWith('*Rule:*'));
    expect(lines[rule + 1]).toBe(
      '*Repeats:* and 14 more like it between 09:02 and 09:58 UTC were not sent one by one',
    );
  });

  it('says nothing of repeats when there were none', () => {
    const plain = makeAlert({ raisedAt: RAISED });

    const email = formatEmailText(plain, { context: ATLAS_CONTEXT });
    const { description } = formatChatbotNotification(plain, { context: ATLAS_CONTEXT }).content;

    expect(email).not.toContain('Repeats');
    expect(description).not.toContain('Repeats');
  });
});
