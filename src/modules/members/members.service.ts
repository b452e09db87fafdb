import type { ChatInviteResult } from '../../chat/index.js';
import { isUniqueViolation, type Tx } from '../../db/database.js';
import { ApiError, notFound, validationFailed } from '../../errors.js';
import { isUuid, newUuid, normaliseEmail } from '../../shared/ids.js';
import type { ServiceDeps } from '../../shared/service-deps.js';
import type { EpochMicros } from '../../shared/time.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { chatWorkspaceOf } from '../chat-connections/chat-connections.service.js';
import { inviteMemberToChat } from './chat-invitations.service.js';
import {
  deactivateActiveMember,
  insertMemberIfEmailFree,
  type MemberRow,
  selectMemberByEmail,
  selectMemberById,
  selectMemberStateByEmail,
  selectProfilesForEmail,
  toMember,
  updateMember,
} from './members.queries.js';
import type { AddMemberBody, Member } from './members.schemas.js';

export type MemberDeps = ServiceDeps;

export interface AddMemberResult {
  /** True when a new member was created (201), false when an existing one was updated (200). */
  created: boolean;
  /** True when the existing member was deactivated or forgotten and is active again. */
  reactivated: boolean;
  member: Member;
  /** Present when the request asked for an invitation. */
  chatInvite?: ChatInviteResult;
}

/** Splits a full name at its first space: the first part is the first name (a single word is one). */
export function splitFullName(fullName: string): { firstName: string; lastName: string } {
  const trimmed = fullName.trim();
  const space = trimmed.search(/\s/);
  if (space < 0) return { firstName: trimmed, lastName: '' };
  return { firstName: trimmed.slice(0, space), lastName: trimmed.slice(space + 1).trim() };
}

interface Saved {
  created: boolean;
  reactivated: boolean;
  row: MemberRow;
  profileId: string | null;
  hasChatIdentity: boolean;
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
  return { created: false, reactivated: existing.state !== 'active', row: updated, ...linked };
}

async function saveMember(deps: MemberDeps, communityId: string, body: AddMemberBody): Promise<Saved> {
  const run = () =>
    writeCommunityData(deps, communityId, async (w) => {
      const saved = await saveInTransaction(w.tx, communityId, body, w.now);
      w.emit(saved.created ? 'member.created' : 'member.updated', () => toMember(saved.row));
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
export async function addMember(deps: MemberDeps, communityId: string, body: AddMemberBody): Promise<AddMemberResult> {
  const invite = body.invite_to_chat === true;
  if (body.chat_channel_ids !== undefined && !invite) {
    throw validationFailed('body.chat_channel_ids', 'is only allowed with invite_to_chat: true');
  }
  const workspace = invite ? await chatWorkspaceOf(deps, communityId) : null;
  if (invite && workspace === null) throw new ApiError('chat_admin_not_configured');

  const saved = await saveMember(deps, communityId, body);
  const member = toMember(saved.row);
  const result: AddMemberResult = { created: saved.created, reactivated: saved.reactivated, member };
  if (workspace === null) return result;
  const target = { member, profileId: saved.profileId, hasChatIdentity: saved.hasChatIdentity };
  result.chatInvite = await inviteMemberToChat(deps, communityId, workspace, target, body.chat_channel_ids ?? []);
  return result;
}

/** The membership flags of an email; all false when no member holds it. */
export async function checkMembership(
  deps: Pick<MemberDeps, 'database'>,
  communityId: string,
  email: string,
): Promise<{ is_member: boolean; is_deactivated: boolean; is_forgotten: boolean }> {
  const state = await selectMemberStateByEmail(deps.database.db, communityId, normaliseEmail(email));
  return { is_member: state !== undefined, is_deactivated: state === 'deactivated', is_forgotten: state === 'forgotten' };
}

/** Deactivates a member without a linked chat profile; reports whether it already was. */
export async function deactivateMember(
  deps: Pick<MemberDeps, 'database' | 'clock'>,
  communityId: string,
  memberId: string,
): Promise<{ member: Member; alreadyDeactivated: boolean }> {
  const db = deps.database.db;
  // Ids are stored lower-case; a UUID is the same id in any letter case.
  const id = isUuid(memberId) ? memberId.toLowerCase() : memberId;
  const existing = await selectMemberById(db, communityId, id);
  if (!existing) throw notFound('Member');
  if (existing.chat_profile_id !== null) throw new ApiError('member_has_chat_profile');
  if (existing.state !== 'active') return { member: toMember(existing), alreadyDeactivated: true };
  // Conditional on the state: of two concurrent calls exactly one reports the change.
  const { changed, now } = await writeCommunityData(deps, communityId, async (w) => {
    const changed = await deactivateActiveMember(w.tx, communityId, id, w.now);
    if (changed) w.emit('member.deactivated', () => toMember({ ...existing, state: 'deactivated', updated_at: w.now }));
    return { changed, now: w.now };
  });
  const row = changed
    ? { ...existing, state: 'deactivated' as const, updated_at: now }
    : ((await selectMemberById(db, communityId, id)) ?? existing);
  return { member: toMember(row), alreadyDeactivated: !changed };
}
