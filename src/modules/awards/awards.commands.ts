import type { Tx } from '../../db/database.js';
import { isUniqueViolation } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { Refused, refuse } from '../../shared/failures.js';
import { newUuid } from '../../shared/ids.js';
import type { StorageDeps } from '../../shared/service-deps.js';
import { epochMillis, millisFromMicros } from '../../shared/time.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { CommandContext, TxContext } from '../../write-path/command-context.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { hasBotConnection } from '../chat-sync/queries/connections.js';
import { selectCommunity } from '../communities/communities.queries.js';
import { selectExistingProfileIds, selectProfileIdByKey, selectProfileJsonByIds } from '../profiles/profiles.queries.js';
import { userIdentifier } from '../profiles/profiles.rules.js';
import {
  type AwardAssignmentRow,
  type AwardRow,
  insertAssignment,
  insertNotification,
  replaceAssignments,
  selectAward,
  upsertAwards,
} from './awards.queries.js';
import { awardMessageText, type NewAward, parseNewAward } from './awards.rules.js';
import type { AssignAwardBody, AwardView } from './awards.schemas.js';

/** What the awards module's commands and reads are given. */
export type AwardDeps = StorageDeps;

/** What the award commands are given (src/write-path/command-context.ts). */
export type AwardContext = CommandContext<AwardDeps>;

/** The recipient's chat user id and name as a direct message names them, or undefined. */
async function profileForMessage(
  tx: Tx,
  communityId: string,
  profileId: string,
): Promise<{ chatUserId: string | null; name: string } | undefined> {
  const doc = (await selectProfileJsonByIds(tx, communityId, [profileId])).get(profileId);
  if (doc === undefined) return undefined;
  // The stored profile always holds chat_user_id ("" when it has none), as its column does (null then).
  const profile = JSON.parse(doc) as { chat_user_id?: string; preferred_name?: string; full_name?: string };
  return { chatUserId: profile.chat_user_id || null, name: profile.preferred_name || profile.full_name || 'someone' };
}

/** The profile a recipient or sender names, or a 404 saying which. */
async function requireProfile(
  deps: Pick<AwardDeps, 'database'>,
  communityId: string,
  user: AssignAwardBody['recipient'],
  at: 'recipient' | 'sender',
): Promise<string> {
  const id = await selectProfileIdByKey(deps.database.db, communityId, userIdentifier(user, [at]));
  if (id === undefined) throw notFound(at === 'recipient' ? 'Recipient' : 'Sender');
  return id;
}

/**
 * `POST /awards/{award_id}/assign`: gives the award to the recipient. Assigning it again to the
 * same profile changes nothing (no second award, no message, no webhook). A new assignment queues
 * a Slack direct message to the recipient in the same transaction when the community has a bot
 * connected and the recipient a Slack user id (src/modules/awards/awards.worker.ts sends it),
 * and emits `award.assigned`.
 */
export async function assignAward(ctx: AwardContext, { awardId, body }: { awardId: string; body: AssignAwardBody }): Promise<void> {
  const { communityId } = ctx;
  // Shapes first, so that a request with two bad parts is told about the first field, whatever exists.
  userIdentifier(body.recipient, ['recipient']);
  if (body.sender !== undefined) userIdentifier(body.sender, ['sender']);
  const award = await selectAward(ctx.database.db, communityId, awardId.toLowerCase());
  if (!award) throw notFound('Award');
  const recipientId = await requireProfile(ctx, communityId, body.recipient, 'recipient');
  const senderId = body.sender === undefined ? null : await requireProfile(ctx, communityId, body.sender, 'sender');
  const anonymous = body.send_anonymously === true;
  await writeCommunityData(ctx, communityId, async (w) => {
    const row = {
      community_id: communityId,
      award_id: award.id,
      profile_id: recipientId,
      sender_profile_id: senderId,
      send_anonymously: anonymous ? (1 as const) : (0 as const),
      assigned_at: w.now,
    };
    if (!(await insertAssignment(w.tx, row))) return;
    w.emit('award.assigned', () => ({
      award: { id: award.id, name: award.name, description: award.description, emoji: award.emoji },
      recipient_profile_id: recipientId,
      sender_profile_id: anonymous ? null : senderId,
      send_anonymously: anonymous,
      assigned_at: formatJsonTimestamp(w.now),
    }));
    w.record({
      action: 'award.assigned',
      target: { type: 'award', id: award.id, name: award.name },
      // An anonymous sender stays anonymous here too, as in the webhook.
      metadata: { recipient_profile_id: recipientId, sender_profile_id: anonymous ? null : senderId, send_anonymously: anonymous },
    });
    const recipient = await profileForMessage(w.tx, communityId, recipientId);
    if (!recipient?.chatUserId || !(await hasBotConnection(w.tx, communityId))) return;
    const sender = senderId === null || anonymous ? undefined : await profileForMessage(w.tx, communityId, senderId);
    const nowMs = millisFromMicros(w.now);
    await insertNotification(w.tx, {
      id: newUuid(),
      community_id: communityId,
      award_id: award.id,
      profile_id: recipientId,
      channel: recipient.chatUserId,
      text: awardMessageText(award, sender?.name ?? null),
      status: 'pending',
      attempts: 0,
      next_attempt_at: nowMs,
      lease_until: epochMillis(0),
      last_error: null,
      sent_at: null,
      created_at: nowMs,
    });
  });
}

/**
 * `award create`: defines an award of the community. Refuses (Refused) fields out of their rules
 * and a name the community already uses; an unknown community is a 404.
 */
export async function createAward(ctx: AwardContext, input: NewAward): Promise<AwardView> {
  const { communityId } = ctx;
  const parsed = parseNewAward(input);
  if ('failures' in parsed) throw new Refused(parsed.failures);
  const { name, description, emoji } = parsed.award;
  if (!(await selectCommunity(ctx.database.db, communityId))) throw notFound('Community');
  const id = newUuid();
  try {
    const createdAt = await writeCommunityData(ctx, communityId, async (w) => {
      await upsertAwards(w.tx, [{ community_id: communityId, id, name, description, emoji, created_at: w.now, updated_at: w.now }]);
      w.record({ action: 'award.created', target: { type: 'award', id, name } });
      return w.now;
    });
    return { id, name, description, emoji, assigned_count: 0, created_at: formatJsonTimestamp(createdAt) };
  } catch (error) {
    if (isUniqueViolation(error)) throw refuse([], 'unique', `The community already has an award named "${name}".`);
    throw error;
  }
}

/** An award and exactly who holds it, as the import file gives it (ids lower-cased, instants in µs). */
export interface AwardWithHolders {
  award: AwardRow;
  holders: AwardAssignmentRow[];
}

/**
 * The import's `awards` section (in the import's transaction): each award and exactly its holders.
 * Refuses, with paths `[record, 'assignments', i, field]`, a holder or sender that is no profile of
 * the community and a member listed twice as holding one award. Sends no message and no webhook:
 * an import is a bulk load, not an event.
 */
export async function importAwards(ctx: Pick<TxContext, 'tx' | 'communityId'>, awards: readonly AwardWithHolders[]): Promise<void> {
  const { tx, communityId } = ctx;
  const referenced = awards.flatMap(({ holders }) =>
    holders.flatMap((h) => [h.profile_id, ...(h.sender_profile_id ? [h.sender_profile_id] : [])]),
  );
  const existing = await selectExistingProfileIds(tx, communityId, referenced);
  for (const [index, { holders }] of awards.entries()) {
    for (const [i, holder] of holders.entries()) {
      for (const field of ['profile_id', 'sender_profile_id'] as const) {
        const id = holder[field];
        if (id && !existing.has(id))
          throw refuse([index, 'assignments', i, field], 'unknown_reference', `no profile "${id}" in this community or this file`);
      }
    }
    const seen = new Set<string>();
    for (const [i, holder] of holders.entries()) {
      if (seen.has(holder.profile_id))
        throw refuse([index, 'assignments', i, 'profile_id'], 'duplicate', `"${holder.profile_id}" holds this award twice`);
      seen.add(holder.profile_id);
    }
  }
  await upsertAwards(
    tx,
    awards.map(({ award }) => award),
  );
  for (const { award, holders } of awards) await replaceAssignments(tx, communityId, award.id, holders);
}
