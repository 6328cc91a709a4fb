import {
  type AtlasAccessHistory,
  type AtlasAccessHistoryOptions,
  AtlasClient,
} from '../../../shared/atlas/index.js';

/**
 * The Atlas client, unchanged, counting the access-history answers that came back full: as many
 * lines as `nLogs` asked for, so that the window may hold older lines the answer left out and the
 * poller must read it shorter. The chaos run reports them, to show that its seeds make windows
 * overflow one answer.
 */
export class ObservedAtlasClient extends AtlasClient {
  /** Access-history answers read whole. */
  accessHistoryReads = 0;
  /** Of those, the answers that held as many lines as asked for. */
  fullAnswers = 0;

  override async readAccessHistory(
    groupId: string,
    clusterName: string,
    options: AtlasAccessHistoryOptions = {},
  ): Promise<AtlasAccessHistory> {
    const read = await super.readAccessHistory(groupId, clusterName, options);
    this.accessHistoryReads += 1;
    if (options.nLogs !== undefined && read.lines.length + read.dropped >= options.nLogs)
      this.fullAnswers += 1;
    return read;
  }
}
