import type { ChatInviteResult, ChatWorkspace } from '../../chat/index.js';
import { isUniqueViolation, type Tx } from '../../db/database.js';
import { ApiError, notFound } from '../../errors.js';
import { changedFields } from '../../shared/activity.js';
import { refuse, refuseSentence } from '../../shared/failures.js';
import { isUuid, newUuid, normaliseEmail } from '../../shared/ids.js';
import type { ServiceDeps } from '../../shared/service-deps.js';
import type { EpochMicros } from '../../shared/time.js';
import type { CommandContext } from '../../write-path/command-context.js';
import { type CommunityWrite, writeCommunityData } from '../../write-path/write-community-data.js';
import { chatWorkspaceOf } from '../chat-connections/chat-connections.reads.js';
import { requireCommunity } from '../communities/communities.reads.js';
import { selectProfilesForEmail } from '../profiles/profiles.queries.js';
import type { ProfileImport } from '../profiles/profiles.schemas.js';
import {
  adoptInvitation,
  type ChatInvitationStatus,
  closePendingInvitations,
  deactivateActiveMember,
  type Invitee,
  insertInvitation,
  insertMemberIfEmailFree,
  linkMemberToProfile,
  type MemberRow,
  selectMemberByEmail,
  selectMemberById,
  selectPendingInvitation,
  selectUnlinkedMembersByEmails,
  updateMember,
} from './members.queries.js';
import { toMember } from './members.records.js';
import { splitFullName } from './members.rules.js';
import type { AddMemberBody, Member } from './members.schemas.js';

/** What member commands and reads are given (a command takes the part it uses). */
export type MemberDeps = ServiceDeps;

/** What the member commands are given (src/write-path/command-context.ts). */
export type MemberContext = CommandContext<MemberDeps>;

export interface AddMemberResult {
  /** True when a new member was created (201), false when an existing one was updated (200). */
  created: boolean;
  /** True when the existing member was deactivated or forgotten and is active again. */
  reactivated: boolean;
  member: Member;
  /** Present when the request asked for an invitation. */
  chatInvite?: ChatInviteResult;
}

interface Saved {
  created: boolean;
  reactivated: boolean;
  row: MemberRow;
  profileId: string | null;
  hasChatIdentity: boolean;
  /** The member as it was, when the add updated one. */
  before?: MemberRow;
}

async function saveInTransaction(tx: Tx, communityId: string, body: AddMemberBody, now: EpochMicros): Promise<Saved> {
  const email = body.email.trim();
  const emailNorm = normaliseEmail(email);
  const fullName = body.full_name.trim();
  const profiles = await selectProfilesForEmail(tx, communityId, emailNorm);
  const linked = { profileId: profiles.anyProfileId, hasChatIdentity: profiles.chatProfileId !== null };
  const preferredName = splitFullName(fullName).firstName;
  const avatar = body.avatar_url_original === '' ? null : body.avatar_url_original;

  // The insert comes first and yields to a member holding the email (the unique index decides, also
  // against a concurrent add of the same email): a new member costs no lookup before its insert, an
  // existing one a no-op insert before its lookup. Adds of new emails are the path measured and
  // tuned (on PostgreSQL each statement is a round trip: docs/performance.md).
  const row: MemberRow = {
    id: newUuid(),
    email,
    email_norm: emailNorm,
    full_name: fullName,
    preferred_name: preferredName,
    avatar_url_original: avatar ?? null,
    chat_profile_id: profiles.chatProfileId,
    state: 'active',
    created_at: now,
    updated_at: now,
  };
  if (await insertMemberIfEmailFree(tx, communityId, row)) return { created: true, reactivated: false, row, ...linked };
  const existing = await selectMemberByEmail(tx, communityId, emailNorm);
  if (!existing) throw new Error('member insert conflicted but no member holds the email');
  const updated: MemberRow = {
    ...existing,
    full_name: fullName,
    preferred_name: preferredName,
    // Omitted keeps the stored avatar; null (or "") clears it.
    avatar_url_original: avatar === undefined ? existing.avatar_url_original : avatar,
    // A link made earlier (e.g. by import) survives when no chat profile matches the email now.
    chat_profile_id: profiles.chatProfileId ?? existing.chat_profile_id,
    state: 'active',
    updated_at: now,
  };
  await updateMember(tx, communityId, existing.id, updated);
  return { created: false, reactivated: existing.state !== 'active', row: updated, ...linked, before: existing };
}

/** The fields of a member whose changes its activity record lists. */
const memberFields = ['email', 'full_name', 'preferred_name', 'avatar_url_original', 'chat_profile_id', 'state'] as const;

async function saveMember(ctx: CommandContext, body: AddMemberBody): Promise<Saved> {
  const { communityId } = ctx;
  const run = () =>
    writeCommunityData(ctx, communityId, async (w) => {
      const saved = await saveInTransaction(w.tx, communityId, body, w.now);
      w.touch('members');
      w.emit(saved.created ? 'member.created' : 'member.updated', () => toMember(saved.row));
      w.record({
        action: saved.created ? 'member.created' : 'member.updated',
        target: { type: 'member', id: saved.row.id, name: saved.row.full_name },
        changes: saved.before ? changedFields(saved.before, saved.row, memberFields) : null,
      });
      return saved;
    });
  try {
    return await run();
  } catch (error) {
    // The insert sidesteps the email race with ON CONFLICT; should a violation still surface (the
    // engine reporting it instead), the member now exists and a second run takes the update path.
    if (isUniqueViolation(error)) return run();
    throw error;
  }
}

/**
 * Adds a member, or updates (and reactivates) the member holding the email; then, when asked,
 * invites them to the chat workspace. Every check happens before anything is written, and a failed
 * invitation does not undo the member.
 */
export async function addMember(ctx: MemberContext, body: AddMemberBody): Promise<AddMemberResult> {
  const { communityId } = ctx;
  const invite = body.invite_to_chat === true;
  if (body.chat_channel_ids !== undefined && !invite) {
    throw refuse(['chat_channel_ids'], 'requires_invite', 'is only allowed with invite_to_chat: true');
  }
  const workspace = invite ? await chatWorkspaceOf(ctx, communityId) : null;
  // Not a refusal of the input but a state of the community: an error known by its code alone (its
  // text is the catalogue's), like the linked member below; only the API calls these commands.
  if (invite && workspace === null) throw new ApiError('chat_admin_not_configured');

  const saved = await saveMember(ctx, body);
  const member = toMember(saved.row);
  const result: AddMemberResult = { created: saved.created, reactivated: saved.reactivated, member };
  if (workspace === null) return result;
  const target = { member, profileId: saved.profileId, hasChatIdentity: saved.hasChatIdentity };
  result.chatInvite = await inviteMemberToChat(ctx, { workspace, target, channelIds: body.chat_channel_ids ?? [] });
  return result;
}

/** Deactivates a member without a linked chat profile; reports whether it already was. */
export async function deactivateMember(ctx: CommandContext, memberId: string): Promise<{ member: Member; alreadyDeactivated: boolean }> {
  const { communityId } = ctx;
  const db = ctx.database.db;
  // Ids are stored lower-case; a UUID is the same id in any letter case.
  const id = isUuid(memberId) ? memberId.toLowerCase() : memberId;
  const existing = await selectMemberById(db, communityId, id);
  if (!existing) throw notFound('Member');
  if (existing.chat_profile_id !== null) throw new ApiError('member_has_chat_profile');
  if (existing.state !== 'active') return { member: toMember(existing), alreadyDeactivated: true };
  // Conditional on the state: of two concurrent calls exactly one reports the change.
  const { changed, now } = await writeCommunityData(ctx, communityId, async (w) => {
    const changed = await deactivateActiveMember(w.tx, communityId, id, w.now);
    if (changed) w.touch('members');
    if (changed) w.emit('member.deactivated', () => toMember({ ...existing, state: 'deactivated', updated_at: w.now }));
    if (changed) w.record({ action: 'member.deactivated', target: { type: 'member', id, name: existing.full_name } });
    return { changed, now: w.now };
  });
  const row = changed
    ? { ...existing, state: 'deactivated' as const, updated_at: now }
    : ((await selectMemberById(db, communityId, id)) ?? existing);
  return { member: toMember(row), alreadyDeactivated: !changed };
}

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
async function inviteMemberToChat(
  ctx: CommandContext,
  { workspace, target, channelIds }: { workspace: ChatWorkspace; target: InvitationTarget; channelIds: string[] },
): Promise<ChatInviteResult> {
  const { communityId } = ctx;
  const db = ctx.database.db;
  const invitee: Invitee = { emailNorm: normaliseEmail(target.member.email), profileId: target.profileId };
  const pending = await selectPendingInvitation(db, communityId, invitee);
  if (pending && !target.hasChatIdentity) {
    await writeCommunityData(ctx, communityId, (w) => adoptInvitation(w.tx, communityId, pending.id, target.member.id, w.now));
    return {
      status: 'already_in_workspace',
      code: 'already_in_team_invited_user',
      channel_ids: channelIdsOf(pending.channel_ids),
      detail: 'The user already holds an invitation to the workspace; no second one was sent.',
    };
  }
  // A chat identity for the email means the invitee has joined: their invitation was accepted.
  if (pending) {
    await writeCommunityData(ctx, communityId, (w) => closePendingInvitations(w.tx, communityId, invitee, 'accepted', w.now));
  }

  const result = await send(workspace, target.member, channelIds);
  await writeCommunityData(ctx, communityId, (w) =>
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
  ctx: CommandContext,
  email: string,
): Promise<{ community_id: string; email: string; cancelled: number }> {
  const { communityId } = ctx;
  const emailNorm = normaliseEmail(email);
  if (emailNorm === '' || emailNorm.length > 254) throw refuseSentence(['email'], 'length', 'The email must be 1-254 characters.');
  await requireCommunity(ctx, communityId);
  const { anyProfileId } = await selectProfilesForEmail(ctx.database.db, communityId, emailNorm);
  const cancelled = await writeCommunityData(ctx, communityId, (w) =>
    closePendingInvitations(w.tx, communityId, { emailNorm, profileId: anyProfileId }, 'cancelled', w.now),
  );
  return { community_id: communityId, email: emailNorm, cancelled };
}

/** Members rule: a member whose email has a profile with a chat identity is linked to it (when not linked yet). */
export async function linkMembersToChatProfiles(w: CommunityWrite, profiles: readonly ProfileImport[]): Promise<void> {
  const byEmail = new Map(
    profiles.flatMap((p) =>
      typeof p.email === 'string' && p.email !== '' && p.chat_user_id ? [[normaliseEmail(p.email), p.profile_id]] : [],
    ),
  );
  if (byEmail.size === 0) return;
  const members = await selectUnlinkedMembersByEmails(w.tx, w.communityId, [...byEmail.keys()]);
  for (const member of members) {
    const profileId = byEmail.get(member.email_norm) as string;
    await linkMemberToProfile(w.tx, w.communityId, member.id, profileId, w.now);
    w.touch('members');
    w.emit('member.updated', () => toMember({ ...member, chat_profile_id: profileId, updated_at: w.now }));
  }
}
