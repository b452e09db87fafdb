import { refuseDuplicateIds } from '../../import/import-section.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { TxContext } from '../../write-path/command-context.js';
import type { CommunityWrite } from '../../write-path/write-community-data.js';
import { linkMembersToChatProfiles } from '../members/members.commands.js';
import { reindexAuthors } from '../search/search.commands.js';
import { markProfilesChatDeleted, selectProfileCreatedAt, selectProfileJsonByIds, upsertProfileRows } from './profiles.queries.js';
import { parseProfileRecord } from './profiles.rules.js';
import { type ProfileImport, profileFromImport } from './profiles.schemas.js';

/*
 * Every change of profiles: the import's section (and the seed, which imports), and chat sync's
 * users (users.list, user_change, team_join, unknown authors) call these.
 */

/**
 * Inserts or replaces profiles by id. A profile the records give no created_at keeps the one it
 * has (or takes `now`), so that importing a file twice changes nothing.
 */
export async function upsertProfiles(ctx: TxContext, records: readonly ProfileImport[]): Promise<void> {
  const { tx, communityId, now } = ctx;
  const known = await selectProfileCreatedAt(
    tx,
    communityId,
    records.filter((r) => !r.created_at).map((r) => r.profile_id.toLowerCase()),
  );
  const nowIso = formatJsonTimestamp(now);
  const profiles = records.map((record) => {
    const existing = known.get(record.profile_id.toLowerCase());
    return profileFromImport(record, existing === undefined ? nowIso : formatJsonTimestamp(existing));
  });
  const before = await selectProfileJsonByIds(
    tx,
    communityId,
    profiles.map((profile) => profile.profile_id),
  );
  await upsertProfileRows(tx, communityId, profiles, now);
  // An author's name is searchable: the posts of a renamed author are indexed again, in the same transaction.
  await reindexAuthors(ctx, { profiles: profiles.map((profile) => ({ id: profile.profile_id, name: profile.preferred_name })), before });
}

/** A chat platform user as a profile record, and whether the platform has deleted the user. */
export interface ChatProfile {
  record: ProfileImport;
  deleted: boolean;
}

/**
 * Writes the profiles of chat users that changed, sets their deleted mark, and links members to
 * the chat profile of their e-mail; returns how many profiles changed.
 */
export async function writeChatProfiles(w: CommunityWrite, users: readonly ChatProfile[]): Promise<number> {
  const stored = await selectProfileJsonByIds(
    w.tx,
    w.communityId,
    users.map((user) => user.record.profile_id),
  );
  const changed: ProfileImport[] = [];
  const deleted: string[] = [];
  const present: string[] = [];
  users.forEach(({ record: given, deleted: isDeleted }) => {
    let record = given;
    const profileId = record.profile_id;
    if (record.email) {
      try {
        record = parseProfileRecord(record);
      } catch {
        // An address the import would refuse is left out rather than losing the whole user.
        record = { ...record, email: null };
      }
    }
    (isDeleted ? deleted : present).push(profileId);
    const before = stored.get(profileId);
    const createdIso = before ? (JSON.parse(before) as { created_at: string }).created_at : formatJsonTimestamp(w.now);
    if (before !== JSON.stringify(profileFromImport(record, createdIso)))
      changed.push(before ? { ...record, created_at: createdIso } : record);
  });
  if (changed.length > 0) {
    // The import's check, kept for chat users: one batch never names a profile twice.
    refuseDuplicateIds(changed, (record) => record.profile_id.toLowerCase(), 'profile_id');
    await upsertProfiles(w, changed);
  }
  let marked = 0;
  for (const [flag, list] of [
    [1, deleted],
    [0, present],
  ] as const) {
    if (list.length === 0) continue;
    marked += await markProfilesChatDeleted(w.tx, w.communityId, list, flag);
  }
  if (changed.length > 0) {
    // Hosts, speakers and post authors are profiles: both views show them.
    w.touch('events');
    w.touch('posts');
    await linkMembersToChatProfiles(w, changed);
  }
  return changed.length + marked;
}
