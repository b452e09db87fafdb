import type { ActivityInput } from '../../../shared/activity.js';
import type { CommandContext } from '../../../write-path/command-context.js';
import { writeCommunityData } from '../../../write-path/write-community-data.js';

/**
 * Records an event that changes no data (a console sign-in, a refused console link, a sync run's
 * start): a write of the write path whose only row is its record, so it is chained and committed
 * exactly like a change's. `ctx.actor` and `ctx.requestContext` say who and from where; a route
 * passes `commandContext(request, services)` (src/routing/command-context.ts).
 */
export async function recordEvent(ctx: CommandContext, activity: ActivityInput): Promise<void> {
  await writeCommunityData(ctx, ctx.communityId, async (w) => {
    w.record(activity);
  });
}
