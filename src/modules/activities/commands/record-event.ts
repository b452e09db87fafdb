import type { ActivityInput } from '../../../shared/activity.js';
import { type WriteDeps, writeCommunityData } from '../../../write-path/write-community-data.js';

/**
 * Records an event that changes no data (a console sign-in, a refused console link, a sync run's
 * start): a write of the write path whose only row is its record, so it is chained and committed
 * exactly like a change's. `deps.actor` and `deps.requestContext` say who and from where; a route
 * passes `commandDeps(request, services)` (src/routing/command-context.ts).
 */
export async function recordEvent(deps: WriteDeps, communityId: string, activity: ActivityInput): Promise<void> {
  await writeCommunityData(deps, communityId, async (w) => {
    w.record(activity);
  });
}
