import type { Alert } from './alert.js';

/**
 * The Slack mentions a rule's text may emit, and only when the rule opts in (`allowMentions: true`):
 * `<!channel>`, `<!here>`, a user `<@U…>` (or `<@W…>` on Enterprise Grid) and a user group
 * `<!subteam^S…>`, written exactly so, with no label.
 *
 * Titles and summaries reach this area already rendered, so the template's own text cannot be told
 * from the event values it interpolated by looking at the text. The rule: a mention token survives only
 * if it appears nowhere in the alert's events (in no string value and no key, at any depth). A token
 * that an event carries may have come from the event, so it is escaped like any event text, even when
 * the template also wrote it: attacker-controlled data can never ping a channel.
 */
const MENTION = /<!channel>|<!here>|<@[UW][A-Z0-9]{2,20}>|<!subteam\^S[A-Z0-9]{2,20}>/g;

/** Keeps the walk over hostile events bounded, however wide or deep they are. */
const MAX_VISITED_VALUES = 200_000;

/**
 * The mention tokens of an alert's title, summary and runbook that may reach Slack unescaped: none
 * unless the alert allows mentions, and never one that also appears in the alert's events.
 *
 * @example
 * ```ts
 * allowedMentionTokens({ ...alert, allowMentions: true, title: '<!here> key created' }); // Set { '<!here>' }
 * ```
 */
export function allowedMentionTokens(
  alert: Pick<Alert, 'allowMentions' | 'title' | 'summary' | 'runbook' | 'events'>,
): ReadonlySet<string> {
  if (!alert.allowMentions) return new Set();
  const candidates = new Set<string>();
  for (const text of [alert.title, alert.summary, alert.runbook ?? '']) {
    for (const match of text.matchAll(MENTION)) candidates.add(match[0]);
  }
  if (candidates.size === 0) return candidates;
  const fromEvents = tokensInValues(alert.events, candidates);
  return new Set([...candidates].filter((token) => !fromEvents.has(token)));
}

/**
 * Which of `tokens` occur in any string or key inside `root`. Walks with an explicit stack, so hostile
 * nesting cannot overflow the call stack; past {@link MAX_VISITED_VALUES} values it assumes the worst.
 */
function tokensInValues(root: unknown, tokens: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  const stack: unknown[] = [root];
  const seen = new Set<object>();
  let visited = 0;
  while (stack.length > 0 && found.size < tokens.size) {
    if (++visited > MAX_VISITED_VALUES) return new Set(tokens);
    const value = stack.pop();
    if (typeof value === 'string') {
      for (const token of tokens) if (value.includes(token)) found.add(token);
    } else if (typeof value === 'object' && value !== null && !seen.has(value)) {
      seen.add(value);
      if (Array.isArray(value)) for (const child of value) stack.push(child);
      else for (const [key, child] of Object.entries(value)) stack.push(key, child);
    }
  }
  return found;
}
