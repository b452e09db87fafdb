import type { Db } from '../../../db/database.js';

/** How many chat events wait to be applied, in every community, and the oldest one's received_at (the metrics' gauges). */
export const chatEventQueueGauge = (db: Db) =>
  db
    .selectFrom('chat_event_queue')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('received_at').as('oldest')])
    .where('applied_at', 'is', null)
    .executeTakeFirstOrThrow();

/** How many backfill scopes there are, and the sums of their done and total items (the metrics' gauges). */
export const backfillGauge = (db: Db) =>
  db
    .selectFrom('chat_sync_checkpoints')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum('done').as('done'), eb.fn.sum('items').as('items')])
    .executeTakeFirstOrThrow();
