import type { MigrationDb } from './migration-support.js';

/*
 * The search index's entries lose their (community_id, author_profile_id) index (docs/search.md,
 * "Figures", Import). It served one statement, the lookup of a renamed author's posts, and cost each
 * new entry an insert at a random place of a second b-tree: a fifth of the index's cost on the
 * import of 100k posts. A rename now finds the author's entries through the text index, by the name
 * they were indexed under (src/modules/search/queries/entries.ts). Dropping an index is quick on
 * both engines (its pages freed, nothing rewritten).
 */

export async function up(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('post_search_author').ifExists().execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.createIndex('post_search_author').on('post_search').columns(['community_id', 'author_profile_id']).execute();
}
