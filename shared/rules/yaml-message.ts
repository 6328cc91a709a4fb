/**
 * A message of the YAML library as one line in the reader's terms, for the rule loader and the deploy
 * configuration alike: the location the library appends (` at line L, column C:` and a code frame)
 * is dropped, since callers give it up front, and the library's jargon for a second document becomes
 * advice: `oneDocument` says what to do instead.
 *
 * @example
 * ```ts
 * yamlErrorMessage('Source contains multiple documents; ... at line 4, column 1:\n\n---\n^', 'a file holds one document');
 * // 'a second YAML document starts here (a "---" line): a file holds one document'
 * ```
 */
export function yamlErrorMessage(text: string, oneDocument: string): string {
  const line = (text.split('\n')[0] ?? text).replace(/ at line \d+, column \d+:$/, '');
  if (line.startsWith('Source contains multiple documents')) {
    return `a second YAML document starts here (a "---" line): ${oneDocument}`;
  }
  return line;
}
