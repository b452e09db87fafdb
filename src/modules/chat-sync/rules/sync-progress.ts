/** A backfill's counts as `chat sync --json` prints them (without the ids the job names already). */
export interface SyncProgress {
  resumed: boolean;
  users: { read: number; changed: number };
  channels: { read: number; changed: number };
  messages: { read: number; posts_created: number; posts_updated: number; skipped: number };
  rate_limit_waits: number;
  seconds: number;
}

export const emptyProgress = (): SyncProgress => ({
  resumed: false,
  users: { read: 0, changed: 0 },
  channels: { read: 0, changed: 0 },
  messages: { read: 0, posts_created: 0, posts_updated: 0, skipped: 0 },
  rate_limit_waits: 0,
  seconds: 0,
});

/** A backfill's summary without the ids its job names already. */
export const progressOf = ({
  community_id: _c,
  team_id: _t,
  ...progress
}: SyncProgress & { community_id: string; team_id: string }): SyncProgress => progress;
