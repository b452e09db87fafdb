import type { ImportSection } from '../../import/import-section.js';
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
  parse: (record) => parseFeedRecord(record),
  async apply(context, records) {
    await upsertFeeds(context, records);
    return records.length;
  },
};
