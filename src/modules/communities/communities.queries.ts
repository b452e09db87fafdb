import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared-query.js';
import type { CommunitiesTable } from '../../db/schema.js';
import type { Plan } from '../../shared/plans.js';

const columns = ['id', 'name', 'plan', 'created_at'] as const;

/** `plan` holds one of the known plans: only they are ever written. */
export type CommunityRow = Omit<Pick<Selectable<CommunitiesTable>, (typeof columns)[number]>, 'plan'> & { plan: Plan };

/** Inserts a community. */
export async function insertCommunity(db: Db, row: CommunityRow): Promise<void> {
  await db.insertInto('communities').values(row).execute();
}

/** All communities, oldest first. */
export async function selectCommunities(db: Db): Promise<CommunityRow[]> {
  const rows = await db.selectFrom('communities').select(columns).orderBy('created_at').orderBy('id').execute();
  return rows as CommunityRow[];
}

/** One community by id, or undefined. */
export async function selectCommunity(db: Db, id: string): Promise<CommunityRow | undefined> {
  const row = await db.selectFrom('communities').select(columns).where('id', '=', id).executeTakeFirst();
  return row as CommunityRow | undefined;
}

/** Changes a community's plan; returns false when there is no such community. */
export async function updateCommunityPlan(db: Db, id: string, plan: Plan): Promise<boolean> {
  const result = await db.updateTable('communities').set({ plan }).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Number of communities (first-start detection). */
export async function countCommunities(db: Db): Promise<number> {
  const row = await db
    .selectFrom('communities')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Both data versions of a community (no row when the community is unknown), compiled once: it is
 * read on every cached request (src/caching/data-version.ts).
 */
export const communityVersionsQuery = preparedQuery((db, p: { communityId: string }) =>
  db.selectFrom('communities').select(['events_version', 'posts_version', 'members_version']).where('id', '=', p.communityId),
);
