import { isUniqueViolation } from '../../db/database.js';
import { ApiError, notFound, validationFailed } from '../../errors.js';
import { isUuid, newUuid } from '../../shared/ids.js';
import type { DatabaseDeps, StorageDeps } from '../../shared/service-deps.js';
import { epochMicros, epochMillis, millisFromMicros } from '../../shared/time.js';
import { formatJsonTimestamp } from '../../shared/timestamps.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { selectProfileIdBy } from '../profiles/profiles.queries.js';
import { userIdentifier } from '../profiles/profiles.rules.js';
import {
  type AwardRow,
  hasBotConnection,
  insertAssignment,
  insertNotification,
  selectAward,
  selectAwardsWithCounts,
  selectProfileForMessage,
  upsertAwards,
} from './awards.queries.js';
import { type AssignAwardBody, type AwardView, awardEmojiPattern } from './awards.schemas.js';

/** The text of the direct message telling a recipient (the sender unnamed when anonymous or absent). */
export function awardMessageText(award: Pick<AwardRow, 'name' | 'description' | 'emoji'>, senderName: string | null): string {
  const from = senderName === null ? '' : ` from ${senderName}`;
  const description = award.description ? `\n>${award.description}` : '';
  return `${award.emoji ?? ':trophy:'} You received the award *${award.name}*${from}!${description}`;
}

/** The profile a recipient or sender names, or a 404 saying which. */
async function requireProfile(deps: DatabaseDeps, communityId: string, user: AssignAwardBody['recipient'], at: string): Promise<string> {
  const id = await selectProfileIdBy(deps.database.db, communityId, userIdentifier(user, at));
  if (id === undefined) throw notFound(at === 'body.recipient' ? 'Recipient' : 'Sender');
  return id;
}

/**
 * `POST /awards/{award_id}/assign`: gives the award to the recipient. Assigning it again to the
 * same profile changes nothing (no second award, no message, no webhook). A new assignment queues
 * a Slack direct message to the recipient in the same transaction when the community has a bot
 * connected and the recipient a Slack user id (src/modules/awards/notification-worker.ts sends it),
 * and emits `award.assigned`.
 */
export async function assignAward(deps: StorageDeps, communityId: string, awardId: string, body: AssignAwardBody): Promise<void> {
  // Shapes first, so that a request with two bad parts is told about the first field, whatever exists.
  userIdentifier(body.recipient, 'body.recipient');
  if (body.sender !== undefined) userIdentifier(body.sender, 'body.sender');
  const award = await selectAward(deps.database.db, communityId, awardId.toLowerCase());
  if (!award) throw notFound('Award');
  const recipientId = await requireProfile(deps, communityId, body.recipient, 'body.recipient');
  const senderId = body.sender === undefined ? null : await requireProfile(deps, communityId, body.sender, 'body.sender');
  const anonymous = body.send_anonymously === true;
  await writeCommunityData(deps, communityId, async (w) => {
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
    const recipient = await selectProfileForMessage(w.tx, communityId, recipientId);
    if (!recipient?.chatUserId || !(await hasBotConnection(w.tx, communityId))) return;
    const sender = senderId === null || anonymous ? undefined : await selectProfileForMessage(w.tx, communityId, senderId);
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

/** The fields of a new award, checked as the CLI's options. */
export interface NewAward {
  name: string;
  description?: string | undefined;
  emoji?: string | undefined;
}

/** `award create`: defines an award of the community; a name the community already uses is refused. */
export async function createAward(deps: StorageDeps, communityId: string, input: NewAward): Promise<AwardView> {
  const name = input.name.trim();
  if (name === '' || name.length > 100) throw validationFailed('name', 'must be 1 to 100 characters');
  const description = input.description?.trim() || null;
  if (description !== null && description.length > 500) throw validationFailed('description', 'must be at most 500 characters');
  const emoji = input.emoji?.trim() || null;
  if (emoji !== null && !new RegExp(awardEmojiPattern).test(emoji))
    throw validationFailed('emoji', 'must be a shortcode such as :trophy: (lower-case letters, digits, _ + - between colons)');
  const exists = await deps.database.db.selectFrom('communities').select('id').where('id', '=', communityId).executeTakeFirst();
  if (!exists) throw notFound('Community');
  const id = newUuid();
  try {
    const createdAt = await writeCommunityData(deps, communityId, async (w) => {
      await upsertAwards(w.tx, [{ community_id: communityId, id, name, description, emoji, created_at: w.now, updated_at: w.now }]);
      return w.now;
    });
    return { id, name, description, emoji, assigned_count: 0, created_at: formatJsonTimestamp(createdAt) };
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ApiError('validation_failed', `The community already has an award named "${name}".`, { hint: 'Choose another name.' });
    throw error;
  }
}

/** `award list`: the community's awards, oldest first, with how many members hold each. */
export async function listAwards(deps: DatabaseDeps, communityId: string): Promise<AwardView[]> {
  const rows = await selectAwardsWithCounts(deps.database.db, communityId);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    emoji: row.emoji,
    assigned_count: Number(row.assigned_count),
    created_at: formatJsonTimestamp(epochMicros(Number(row.created_at))),
  }));
}

/** An award id from a path, lower-cased, or a 400 naming the parameter. */
export function awardIdFromPath(value: string): string {
  if (!isUuid(value)) throw validationFailed('path.award_id', 'must be a UUID');
  return value.toLowerCase();
}
