import { asImportError, atIndex, type ImportSection } from '../../import/import-section.js';
import { upsertFeeds } from './feeds.commands.js';
import { type ParsedFeed, parseFeedRecord } from './feeds.rules.js';

const section = 'feeds';

/**
 * The `feeds` section of the import file: each record checked by the feed rules, then all of them
 * upserted by the upsertFeeds command. Their refusals are printed as the import prints them,
 * `feeds[i].<field>: <message>`.
 */
export const feedsImportSection: ImportSection<ParsedFeed> = {
  name: section,
  parse(record, index) {
    // Rendered here rather than by the import alone: `feed add` (src/modules/chat-sync/commands/bound-feeds.ts)
    // parses its record through this section and prints the import's line as it is.
    try {
      return atIndex(index, () => parseFeedRecord(record));
    } catch (error) {
      throw asImportError(section, error);
    }
  },
  async apply(tx, records, context) {
    await upsertFeeds({ tx, communityId: context.communityId, now: context.now }, records);
    return records.length;
  },
};
