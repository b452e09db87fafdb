import { type ApiError, notFound } from '../../errors.js';
import type { StorageDeps } from '../../shared/service-deps.js';
import { selectCommunities, selectCommunity } from './communities.queries.js';
import { type Community, toCommunity } from './communities.records.js';

/** What the communities module's commands and reads are given. */
export type CommunityDeps = StorageDeps;

/** The 404 of a community id that names none, in the operator commands' words. */
export const communityNotFound = (id: string): ApiError => notFound('Community', `No community with id "${id}".`);

/** Lists every community. */
export async function listCommunities({ database }: Pick<CommunityDeps, 'database'>): Promise<Community[]> {
  return (await selectCommunities(database.db)).map(toCommunity);
}

/** Throws unless the community exists (CLI commands that take --community). */
export async function requireCommunity({ database }: Pick<CommunityDeps, 'database'>, id: string): Promise<Community> {
  const row = await selectCommunity(database.db, id);
  if (!row) throw communityNotFound(id);
  return toCommunity(row);
}
