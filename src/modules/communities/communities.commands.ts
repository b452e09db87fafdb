import { storedNow } from '../../shared/clock.js';
import { refuseSentence } from '../../shared/failures.js';
import { newUuid } from '../../shared/ids.js';
import { isPlan, plans } from '../../shared/plans.js';
import { createApiKey } from '../api-keys/api-keys.commands.js';
import { type CommunityRow, countCommunities, insertCommunity, selectCommunity, updateCommunityPlan } from './communities.queries.js';
import { type CommunityDeps, communityNotFound } from './communities.reads.js';
import { type Community, toCommunity } from './communities.records.js';

function requirePlan(plan: string) {
  if (!isPlan(plan)) throw refuseSentence(['plan'], 'one_of', `Unknown plan "${plan}": use one of ${plans.join(', ')}.`);
  return plan;
}

/** Creates a community on a plan. */
export async function createCommunity(
  { database, clock }: CommunityDeps,
  { name, plan }: { name: string; plan: string },
): Promise<Community> {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200)
    throw refuseSentence(['name'], 'length', 'The community name must be 1-200 characters.');
  const row: CommunityRow = { id: newUuid(), name: trimmed, plan: requirePlan(plan), created_at: storedNow(clock) };
  await insertCommunity(database.db, row);
  return toCommunity(row);
}

/** Changes the plan of a community. */
export async function setCommunityPlan(
  { database, communityId: id }: Pick<CommunityDeps, 'database'> & { readonly communityId: string },
  plan: string,
): Promise<Community> {
  const checked = requirePlan(plan);
  if (!(await updateCommunityPlan(database.db, id, checked))) throw communityNotFound(id);
  const row = await selectCommunity(database.db, id);
  if (!row) throw communityNotFound(id);
  return toCommunity(row);
}

/**
 * On an empty database, creates the default community and its first key, and returns the key's
 * secret (to be shown once). Returns null on every later start.
 */
export async function bootstrapDefaultCommunity(deps: CommunityDeps): Promise<{ community: Community; key: string } | null> {
  if ((await countCommunities(deps.database.db)) > 0) return null;
  const community = await createCommunity(deps, { name: 'Default community', plan: 'enterprise' });
  const created = await createApiKey({ ...deps, communityId: community.id }, { label: 'default' });
  return { community, key: created.key };
}
