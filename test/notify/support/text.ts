/** Whether `text` holds a C0 control character (line feed excepted unless `allowLineFeed` is false) or DEL. */
export function hasControlCharacter(text: string, allowLineFeed = true): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x0a && allowLineFeed) continue;
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** The JSON under the raw event heading of an alert email. */
export function rawEventJson(email: string): string {
  const start = email.indexOf('{', email.indexOf('\nRaw event'));
  return email.slice(start, email.lastIndexOf('\n\n--\n'));
}
