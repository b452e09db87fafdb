import type { ImportSection } from '../../import/import-section.js';
import { upsertPosts } from './posts.commands.js';
import { type ParsedPost, parsePostRecord } from './posts.rules.js';

/**
 * The `posts` section of the import file, after feeds and profiles, whose ids it refers to: each
 * record checked by the post rules, then all of them upserted by the upsertPosts command. Their
 * refusals are printed by the import (src/import/run-import.ts) as `posts[i].<field>: <message>`.
 */
export const postsImportSection: ImportSection<ParsedPost> = {
  name: 'posts',
  parse: (record) => parsePostRecord(record),
  async apply(context, records) {
    await upsertPosts(context, records);
    return records.length;
  },
};
