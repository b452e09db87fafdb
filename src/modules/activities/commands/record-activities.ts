import type { Tx } from '../../../db/database.js';
import type { ActivityInput, Actor, RequestContext } from '../../../shared/activity.js';
import { newUuid } from '../../../shared/ids.js';
import { type EpochMicros, epochMicros } from '../../../shared/time.js';
import { formatJsonTimestamp } from '../../../shared/timestamps.js';
import { appendActivity } from '../activities.queries.js';
import { canonicalText } from '../activities.records.js';

/** The actor of a write whose deps name none (a worker's): the server itself. */
const unnamedSystem: Actor = { type: 'system', id: null, label: null };

const jsonOrNull = (value: object | null | undefined): string | null =>
  value === null || value === undefined || Object.keys(value).length === 0 ? null : JSON.stringify(value);

/**
 * Writes a change's activity records in its transaction, before the commit (the write path calls
 * it last, so that on PostgreSQL the append goes with the commit: `withCommit`). Each record's id,
 * instant, actor and context are the write's; its canonical text is built here once, from the
 * record exactly as it will be read back (JSON texts parsed again give the same canonical bytes).
 */
export async function recordActivities(
  tx: Tx,
  communityId: string,
  entries: readonly ActivityInput[],
  now: EpochMicros,
  actor: Actor | undefined,
  context: RequestContext | null | undefined,
  postgres: boolean,
  withCommit: boolean,
): Promise<void> {
  for (const entry of entries) {
    const who = entry.actor ?? actor ?? unnamedSystem;
    const changes = jsonOrNull(entry.changes);
    const metadata = jsonOrNull(entry.metadata);
    const contextText = context ? JSON.stringify(context) : null;
    const id = newUuid();
    const canonical = canonicalText({
      id,
      occurred_at: formatJsonTimestamp(epochMicros(now)),
      action: entry.action,
      actor: who,
      target: entry.target,
      context: context ?? null,
      changes: changes === null ? null : (JSON.parse(changes) as Record<string, [unknown, unknown]>),
      metadata: metadata === null ? null : (JSON.parse(metadata) as Record<string, unknown>),
    });
    const appended = appendActivity(
      tx,
      postgres,
      // Several held appends go together with the commit, in order (each sees the head the one before moved).
      withCommit,
      {
        community_id: communityId,
        id,
        occurred_at: now,
        action: entry.action,
        actor_type: who.type,
        actor_id: who.id,
        actor_label: who.label,
        target_type: entry.target.type,
        target_id: entry.target.id,
        target_name: entry.target.name,
        context: contextText,
        changes,
        metadata,
      },
      canonical,
    );
    // SQLite appends at once (no promise); PostgreSQL's is a statement sent (or held) on the connection.
    if (appended instanceof Promise) await appended;
  }
}
