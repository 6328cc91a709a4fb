import { cleanLine } from '../text-cleaning.js';
import type { ChatbotNotification } from './chatbot-notification.js';

/**
 * A terminal rendering of how Slack shows a Chatbot notification: title, description, next steps and
 * keywords, with Slack's escapes undone, `*bold*` made bold, links shown as `label (url)` and emoji
 * codes drawn. Every line is cleaned again, so nothing in it can drive the terminal.
 */

export interface SlackPreviewOptions {
  /** ANSI colours and bold; for a TTY only. Default: none. */
  color?: boolean;
  /** Width of the frame. Default 100. */
  width?: number;
}

const EMOJI: Readonly<Record<string, string>> = {
  ':rotating_light:': '\u{1F6A8}',
  ':red_circle:': '\u{1F534}',
  ':large_orange_circle:': '\u{1F7E0}',
  ':large_yellow_circle:': '\u{1F7E1}',
  ':information_source:': '\u2139\uFE0F',
};

const BOLD = '\u001b[1m';
const DIM = '\u001b[2m';
const RESET = '\u001b[0m';

/**
 * Renders a Chatbot notification as Slack would show it, framed for a terminal.
 *
 * @example
 * ```ts
 * process.stdout.write(renderSlackPreview(notification, { color: process.stdout.isTTY }));
 * ```
 */
export function renderSlackPreview(
  notification: ChatbotNotification,
  options: SlackPreviewOptions = {},
): string {
  const color = options.color === true;
  const width = options.width ?? 100;
  const bold = (text: string): string => (color ? `${BOLD}${text}${RESET}` : text);
  const dim = (text: string): string => (color ? `${DIM}${text}${RESET}` : text);
  const render = (text: string): string => renderMrkdwn(text, bold);

  const lines: string[] = [];
  if (notification.content.title !== undefined)
    lines.push(bold(stripBold(render(notification.content.title))));
  lines.push('');
  for (const line of notification.content.description.split('\n')) lines.push(render(line));
  const steps = notification.content.nextSteps ?? [];
  if (steps.length > 0) {
    lines.push('', bold('Next steps'));
    for (const step of steps) lines.push(`  \u2022 ${render(step)}`);
  }
  const keywords = notification.content.keywords ?? [];
  if (keywords.length > 0) lines.push('', keywords.map((keyword) => dim(`[${render(keyword)}]`)).join(' '));

  const top = `\u250C\u2500 Slack (AWS Chatbot) ${'\u2500'.repeat(Math.max(0, width - 22))}`;
  const bottom = `\u2514${'\u2500'.repeat(Math.max(0, width - 1))}`;
  return `${dim(top)}\n${lines.map((line) => `${dim('\u2502')} ${line}`).join('\n')}\n${dim(bottom)}\n`;
}

/** One line of mrkdwn as Slack shows it; `bold` wraps what Slack shows in bold. */
function renderMrkdwn(text: string, bold: (text: string) => string): string {
  const linked = cleanLine(text).replace(
    /<([^|<>]+)\|([^<>]*)>/g,
    (_, url: string, label: string) => `${label} (${url})`,
  );
  const emoji = linked.replace(/:[a-z_]+:/g, (code) => EMOJI[code] ?? code);
  const bolded = emoji.replace(/\*([^*\n]+)\*/g, (_, inner: string) => bold(inner));
  return bolded.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function stripBold(text: string): string {
  return text.replaceAll(BOLD, '').replaceAll(RESET, '');
}
