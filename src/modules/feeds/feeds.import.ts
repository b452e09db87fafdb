import type { ImportSection } from '../../import/import-section.js';
import { upsertFeeds } from './feeds.commands.js';
import { type ParsedFeed, parseFeedRecord } from './feeds.rules.js';

/**
 * The `feeds` section of the import file: each record checked by the feed rules, then all of them
 * upserted by the upsertFeeds command. Their refusals are printed by the import
 * (src/import/run-import.ts) as `feeds[i].<field>: <message>`.
 */
export const feedsImportSection: ImportSection<ParsedFeed> = {
  name: 'feeds',
  parse: (record) => parseFeedRecord(record),
  async apply(tx, records, context) {
    await upsertFeeds({ tx, communityId: context.communityId, now: context.now }, records);
    return records.length;
  },
};
