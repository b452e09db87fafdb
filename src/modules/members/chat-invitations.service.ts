import type { ChatInviteResult, ChatWorkspace } from '../../chat/index.js';
import type { Database } from '../../db/database.js';
import { UserInputError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newUuid, normaliseEmail } from '../../shared/ids.js';
import type { StorageDeps } from '../../shared/service-deps.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { requireCommunity } from '../communities/communities.service.js';
import { selectProfilesForEmail } from '../profiles/profiles.queries.js';
import {
  adoptInvitation,
  type ChatInvitationStatus,
  closePendingInvitations,
  type Invitee,
  insertInvitation,
  selectPendingInvitation,
} from './chat-invitations.queries.js';
import type { Member } from './members.schemas.js';

export type InvitationDeps = StorageDeps;

/** The member being invited, and what the community knows of the email's profiles. */
export interface InvitationTarget {
  member: Member;
  /** The community profile with the member's email, if any: the one a pending invitation holds. */
  profileId: string | null;
  /** True when a profile with the email has a chat identity: the person is in the workspace. */
  hasChatIdentity: boolean;
}

function recordedStatus(result: ChatInviteResult): ChatInvitationStatus {
  if (result.status === 'invited') return 'pending';
  if (result.status === 'failed') return 'failed';
  // `already_in_team`: the person is in the workspace. The other codes say an invitation sent
  // elsewhere (by a workspace admin) is outstanding: remember it, so no second one is attempted.
  return result.code === 'already_in_team' ? 'accepted' : 'pending';
}

function channelIdsOf(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
}

async function send(workspace: ChatWorkspace, member: Member, channelIds: string[]): Promise<ChatInviteResult> {
  try {
    return await workspace.inviteUser({ email: member.email, channelIds, fullName: member.full_name });
  } catch {
    // The Slack adapter never throws; another adapter might. The member is saved either way, so
    // the failure is reported in chat_invite rather than failing the request.
    return { status: 'failed', code: 'chat_error', channel_ids: channelIds, detail: 'The call to the chat platform failed unexpectedly.' };
  }
}

/**
 * Invites a saved member to the chat workspace and records the attempt. While an invitation of the
 * email (or of the profile holding it) is outstanding, the member adopts it and no second one is sent.
 */
export async function inviteMemberToChat(
  deps: InvitationDeps,
  communityId: string,
  workspace: ChatWorkspace,
  target: InvitationTarget,
  channelIds: string[],
): Promise<ChatInviteResult> {
  const db = deps.database.db;
  const invitee: Invitee = { emailNorm: normaliseEmail(target.member.email), profileId: target.profileId };
  const pending = await selectPendingInvitation(db, communityId, invitee);
  if (pending && !target.hasChatIdentity) {
    await writeCommunityData(deps, communityId, (w) => adoptInvitation(w.tx, communityId, pending.id, target.member.id, w.now));
    return {
      status: 'already_in_workspace',
      code: 'already_in_team_invited_user',
      channel_ids: channelIdsOf(pending.channel_ids),
      detail: 'The user already holds an invitation to the workspace; no second one was sent.',
    };
  }
  // A chat identity for the email means the invitee has joined: their invitation was accepted.
  if (pending) {
    await writeCommunityData(deps, communityId, (w) => closePendingInvitations(w.tx, communityId, invitee, 'accepted', w.now));
  }

  const result = await send(workspace, target.member, channelIds);
  await writeCommunityData(deps, communityId, (w) =>
    insertInvitation(w.tx, communityId, {
      id: newUuid(),
      email_norm: invitee.emailNorm,
      profile_id: target.profileId,
      member_id: target.member.id,
      status: recordedStatus(result),
      channel_ids: JSON.stringify(result.channel_ids),
      created_at: w.now,
      updated_at: w.now,
    }),
  );
  return result;
}

/** Records that the pending invitations of an email were revoked in the workspace, so that a new one can be sent. */
export async function cancelChatInvitations(
  database: Database,
  clock: Clock,
  communityId: string,
  email: string,
): Promise<{ community_id: string; email: string; cancelled: number }> {
  const emailNorm = normaliseEmail(email);
  if (emailNorm === '' || emailNorm.length > 254) throw new UserInputError('The email must be 1-254 characters.');
  await requireCommunity({ database }, communityId);
  const { anyProfileId } = await selectProfilesForEmail(database.db, communityId, emailNorm);
  const cancelled = await writeCommunityData({ database, clock }, communityId, (w) =>
    closePendingInvitations(w.tx, communityId, { emailNorm, profileId: anyProfileId }, 'cancelled', w.now),
  );
  return { community_id: communityId, email: emailNorm, cancelled };
}
