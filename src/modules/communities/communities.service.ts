import { UserInputError } from '../../errors.js';
import { storedNow } from '../../shared/clock.js';
import { newUuid } from '../../shared/ids.js';
import { isPlan, type Plan, plans } from '../../shared/plans.js';
import type { DatabaseDeps, StorageDeps } from '../../shared/service-deps.js';
import { createApiKey } from '../api-keys/api-keys.service.js';
import {
  type CommunityRow,
  countCommunities,
  insertCommunity,
  selectCommunities,
  selectCommunity,
  updateCommunityPlan,
} from './communities.queries.js';

export interface Community {
  id: string;
  name: string;
  plan: Plan;
}

const toCommunity = (row: CommunityRow): Community => ({ id: row.id, name: row.name, plan: row.plan });

function requirePlan(plan: string) {
  if (!isPlan(plan)) throw new UserInputError(`Unknown plan "${plan}": use one of ${plans.join(', ')}.`);
  return plan;
}

/** Creates a community on a plan. */
export async function createCommunity({ database, clock }: StorageDeps, name: string, plan: string): Promise<Community> {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) throw new UserInputError('The community name must be 1-200 characters.');
  const row: CommunityRow = { id: newUuid(), name: trimmed, plan: requirePlan(plan), created_at: storedNow(clock) };
  await insertCommunity(database.db, row);
  return toCommunity(row);
}

/** Lists every community. */
export async function listCommunities({ database }: DatabaseDeps): Promise<Community[]> {
  return (await selectCommunities(database.db)).map(toCommunity);
}

/** Changes the plan of a community. */
export async function setCommunityPlan({ database }: DatabaseDeps, id: string, plan: string): Promise<Community> {
  const checked = requirePlan(plan);
  if (!(await updateCommunityPlan(database.db, id, checked))) throw new UserInputError(`No community with id "${id}".`);
  const row = await selectCommunity(database.db, id);
  if (!row) throw new UserInputError(`No community with id "${id}".`);
  return toCommunity(row);
}

/** Throws unless the community exists (CLI commands that take --community). */
export async function requireCommunity({ database }: DatabaseDeps, id: string): Promise<Community> {
  const row = await selectCommunity(database.db, id);
  if (!row) throw new UserInputError(`No community with id "${id}".`);
  return toCommunity(row);
}

/**
 * On an empty database, creates the default community and its first key, and returns the key's
 * secret (to be shown once). Returns null on every later start.
 */
export async function bootstrapDefaultCommunity(deps: StorageDeps): Promise<{ community: Community; key: string } | null> {
  if ((await countCommunities(deps.database.db)) > 0) return null;
  const community = await createCommunity(deps, 'Default community', 'enterprise');
  const created = await createApiKey(deps, community.id, 'default');
  return { community, key: created.key };
}
