import type { Plan } from '../../shared/plans.js';
import type { CommunityRow } from './communities.queries.js';

/** A community as the CLI shows it. */
export interface Community {
  id: string;
  name: string;
  plan: Plan;
}

/** A stored community as the CLI shows it. */
export const toCommunity = (row: CommunityRow): Community => ({ id: row.id, name: row.name, plan: row.plan });
