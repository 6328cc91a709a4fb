import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';

/** Where a setting is written in a configuration file, 1-based. */
export interface SettingLocation {
  /** The file as the user named it. */
  file: string;
  line: number;
  column: number;
}

/** Finds a setting, by its path, in one configuration file; `undefined` when the file does not hold it. */
export type SettingLocator = (path: readonly PropertyKey[]) => SettingLocation | undefined;

/**
 * A locator over the text of a YAML or JSON configuration file (JSON is read as the YAML it also
 * is): a setting is found at its key (`sources:`), a list item at the item (`- 5f4e…`). A path the
 * file does not hold, through an alias or into a value the `cdk.json` context gave, has none.
 *
 * @example
 * ```ts
 * const locate = settingLocator({ text: 'sources:\n  orgIds: [a, b]\n', file: 'prod.yaml' });
 * locate(['sources', 'orgIds', 1]); // { file: 'prod.yaml', line: 2, column: 14 }
 * ```
 */
export function settingLocator(options: { text: string; file: string }): SettingLocator {
  const lineCounter = new LineCounter();
  const document = parseDocument(options.text, { lineCounter });
  return (path) => {
    if (path.length === 0) return undefined;
    let node: unknown = document.contents;
    let offset: number | undefined;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find(
          (item) => isScalar(item.key) && String(item.key.value) === String(segment),
        );
        if (pair === undefined || !isScalar(pair.key)) return undefined;
        offset = pair.key.range?.[0];
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item: unknown = node.items[segment];
        if (!isScalar(item) && !isMap(item) && !isSeq(item)) return undefined;
        offset = item.range?.[0];
        node = item;
      } else {
        return undefined;
      }
    }
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { file: options.file, line, column: col };
  };
}
