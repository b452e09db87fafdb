import type { Selectable } from 'kysely';
import type { Db, Tx } from '../../db/database.js';
import type { ChatInvitationsTable } from '../../db/schema.js';
import type { EpochMicros } from '../../shared/time.js';

export type ChatInvitationStatus = ChatInvitationsTable['status'];

/** channel_ids: a JSON array of the channel ids the invitation used. */
export type ChatInvitationRow = Omit<Selectable<ChatInvitationsTable>, 'community_id'>;

/** Who an invitation is for: an email, and the community profile with that email when there is one. */
export interface Invitee {
  emailNorm: string;
  profileId: string | null;
}

/**
 * The latest outstanding (pending) invitation of an email, or of the profile that holds it
 * (a profile whose email changed since it was invited still counts as invited).
 */
export async function selectPendingInvitation(db: Db | Tx, communityId: string, invitee: Invitee): Promise<ChatInvitationRow | undefined> {
  return db
    .selectFrom('chat_invitations')
    .select(['id', 'email_norm', 'profile_id', 'member_id', 'status', 'channel_ids', 'created_at', 'updated_at'])
    .where('community_id', '=', communityId)
    .where('status', '=', 'pending')
    .where((eb) => {
      const byEmail = eb('email_norm', '=', invitee.emailNorm);
      return invitee.profileId === null ? byEmail : eb.or([byEmail, eb('profile_id', '=', invitee.profileId)]);
    })
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Records one invitation attempt. */
export async function insertInvitation(tx: Tx, communityId: string, row: ChatInvitationRow): Promise<void> {
  await tx
    .insertInto('chat_invitations')
    .values({ community_id: communityId, ...row })
    .execute();
}

/** Hands a pending invitation (and the profile it holds) over to a member. */
export async function adoptInvitation(tx: Tx, communityId: string, id: string, memberId: string, now: EpochMicros): Promise<void> {
  await tx
    .updateTable('chat_invitations')
    .set({ member_id: memberId, updated_at: now })
    .where('community_id', '=', communityId)
    .where('id', '=', id)
    .execute();
}

/** Moves every pending invitation of an invitee to a final status; returns how many changed. */
export async function closePendingInvitations(
  tx: Tx,
  communityId: string,
  invitee: Invitee,
  status: 'accepted' | 'cancelled',
  now: EpochMicros,
): Promise<number> {
  const result = await tx
    .updateTable('chat_invitations')
    .set({ status, updated_at: now })
    .where('community_id', '=', communityId)
    .where('status', '=', 'pending')
    .where((eb) => {
      const byEmail = eb('email_norm', '=', invitee.emailNorm);
      return invitee.profileId === null ? byEmail : eb.or([byEmail, eb('profile_id', '=', invitee.profileId)]);
    })
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
