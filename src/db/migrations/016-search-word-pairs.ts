import { sql } from 'kysely';
import { atomically, type MigrationDb } from './migration-support.js';

/*
 * Word pairs in the search index (docs/search.md, "Word pairs"): posts indexed from now on carry
 * them; the communities indexed before are listed as unpaired, and their searches leave pairs out
 * (the same answers, phrases with common words slower) until `community-admin search reindex` builds
 * their index again. Indexing every stored post here would hold the start for minutes at a million
 * posts; the list costs one row per community.
 */

export async function up(db: MigrationDb): Promise<void> {
  await atomically(db, async (tx) => {
    await tx.schema
      .createTable('post_search_unpaired')
      .addColumn('community_id', 'text', (c) => c.primaryKey().references('communities.id').onDelete('cascade'))
      .execute();
    await sql`insert into post_search_unpaired (community_id)
      select c.id from communities c where exists (select 1 from post_search s where s.community_id = c.id)`.execute(tx);
  });
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropTable('post_search_unpaired').ifExists().execute();
}
