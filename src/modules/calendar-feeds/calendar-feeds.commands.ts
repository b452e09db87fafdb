import { randomBytes } from 'node:crypto';
import { ConfigError } from '../../config.js';
import type { Database } from '../../db/database.js';
import { ApiError, notFound } from '../../errors.js';
import type { ActorDeps } from '../../shared/activity.js';
import type { Clock } from '../../shared/clock.js';
import { refuse } from '../../shared/failures.js';
import { newUuid } from '../../shared/ids.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { EpochMicros } from '../../shared/time.js';
import type { CommandContext, OperatorContext } from '../../write-path/command-context.js';
import { writeCommunityData } from '../../write-path/write-community-data.js';
import { selectTagIdByIdOrLabel } from '../calendar-events/queries/feed.js';
import { selectCommunity } from '../communities/communities.queries.js';
import { selectMemberById } from '../members/members.queries.js';
import {
  deleteFeedEntries,
  insertCalendarFeed,
  lockCalendarFeed,
  revokeCalendarFeedRow,
  selectCalendarFeedById,
  selectFeedEntries,
  selectLiveMemberFeed,
  upsertFeedEntries,
} from './calendar-feeds.queries.js';
import { type CalendarFeedRecord, calendarFeedRecord, feedUrls } from './calendar-feeds.records.js';
import { type FeedEvent, type SettledFeed, settleFeed, tokenHash } from './calendar-feeds.rules.js';
import { maxLabelLength } from './calendar-feeds.schemas.js';

/** What the feed commands need. */
export interface CalendarFeedDeps extends ActorDeps {
  database: Database;
  clock: Clock;
  /** Seals a member feed's token (SECRETS_KEY), so that its URL can be answered again. */
  secrets: SecretBox;
  /** The base of the feeds' URLs (PUBLIC_BASE_URL, else the listening address). */
  publicBaseUrl: () => string;
}

/** What the feed commands are given (src/write-path/command-context.ts). */
export type CalendarFeedContext = CommandContext<CalendarFeedDeps>;

/** What a shared feed is created with (CLI and API). */
export interface NewCalendarFeed {
  label?: string | undefined;
  /** A tag's id or label: only events carrying it. */
  tag?: string | undefined;
  include_unlisted?: boolean | undefined;
}

/** 32 random bytes as base64url: 43 characters, 256 bits (nothing to guess, no slow hash needed). */
const newToken = (): string => randomBytes(32).toString('base64url');

/** Creates a shared feed of the community's events; its URL is in the answer, and never again (only its hash is kept). */
export async function createCalendarFeed(ctx: CalendarFeedContext, input: NewCalendarFeed): Promise<CalendarFeedRecord> {
  const { communityId } = ctx;
  const label = (input.label ?? '').trim();
  if (label.length > maxLabelLength) throw refuse(['label'], 'too_long', `must be at most ${maxLabelLength} characters`);
  if (!(await selectCommunity(ctx.database.db, communityId))) throw notFound('Community');
  let tagId: string | null = null;
  if (input.tag !== undefined) {
    const found = await selectTagIdByIdOrLabel(ctx.database.db, communityId, input.tag);
    if (found === undefined)
      throw refuse(['tag'], 'unknown_reference', `no event of the community carries the tag ${JSON.stringify(input.tag)} (by id or label)`);
    tagId = found;
  }
  const token = newToken();
  const row = await writeCommunityData(ctx, communityId, async (w) => {
    const inserted = {
      community_id: communityId,
      id: newUuid(),
      label,
      token_hash: tokenHash(token),
      token_sealed: null,
      member_id: null,
      tag_id: tagId,
      include_unlisted: input.include_unlisted ? (1 as const) : (0 as const),
      created_at: w.now,
      revoked_at: null,
    };
    await insertCalendarFeed(w.tx, inserted);
    // Never the token (nor its hash): the record names the feed by its id and label.
    w.record({
      action: 'calendar_feed.created',
      target: { type: 'calendar_feed', id: inserted.id, name: label || null },
      metadata: { tag_id: tagId, include_unlisted: inserted.include_unlisted === 1 },
    });
    return inserted;
  });
  return calendarFeedRecord(row, feedUrls(ctx.publicBaseUrl(), token));
}

/** A member feed's token, or a 409 when it was sealed with a key this server no longer holds (SECRETS_KEY rotated, the old one dropped). */
function openSealedToken(deps: Pick<CalendarFeedDeps, 'secrets'>, sealed: string): string {
  try {
    return deps.secrets.open(sealed);
  } catch (error) {
    if (error instanceof ConfigError) throw new ApiError('calendar_feed_unreadable');
    throw error;
  }
}

/**
 * A member's own feed (the events the member attends): created on the first call, the same URL on
 * every later one until it is revoked. The token is kept hashed for lookups and sealed (SecretBox)
 * to be answered again. `created` says which of the two happened.
 */
export async function memberCalendarFeed(
  ctx: CalendarFeedContext,
  memberId: string,
): Promise<{ feed: CalendarFeedRecord; created: boolean }> {
  const { communityId } = ctx;
  if (!(await selectMemberById(ctx.database.db, communityId, memberId))) throw notFound('Member');
  return writeCommunityData(ctx, communityId, async (w) => {
    const existing = await selectLiveMemberFeed(w.tx, communityId, memberId);
    if (existing?.token_sealed) {
      const token = openSealedToken(ctx, existing.token_sealed);
      return { feed: calendarFeedRecord(existing, feedUrls(ctx.publicBaseUrl(), token)), created: false };
    }
    const token = newToken();
    const row = {
      community_id: communityId,
      id: newUuid(),
      label: 'My events',
      token_hash: tokenHash(token),
      token_sealed: ctx.secrets.seal(token),
      member_id: memberId,
      tag_id: null,
      include_unlisted: 1 as const,
      created_at: w.now,
      revoked_at: null,
    };
    await insertCalendarFeed(w.tx, row);
    w.record({
      action: 'calendar_feed.created',
      target: { type: 'calendar_feed', id: row.id, name: row.label },
      metadata: { member_id: memberId },
    });
    return { feed: calendarFeedRecord(row, feedUrls(ctx.publicBaseUrl(), token)), created: true };
  });
}

/** Revokes a feed of the community (the API); its URL answers 404 from now on. */
export async function revokeCalendarFeed(ctx: CommandContext, id: string): Promise<void> {
  const { communityId } = ctx;
  const revoked = await writeCommunityData(ctx, communityId, async (w) => {
    const row = await selectCalendarFeedById(w.tx, id);
    if (!(await revokeCalendarFeedRow(w.tx, communityId, id, w.now))) return false;
    // A second revoke changes nothing and records nothing (it is refused: 404).
    w.record({
      action: 'calendar_feed.revoked',
      target: { type: 'calendar_feed', id, name: row?.label || null },
      metadata: row?.member_id ? { member_id: row.member_id } : null,
    });
    return true;
  });
  if (!revoked) throw notFound('Calendar feed');
}

/** Revokes a feed by its id alone (the CLI: the operator of the whole service); answers its community. */
export async function revokeCalendarFeedById(ctx: OperatorContext, id: string): Promise<string> {
  const row = await selectCalendarFeedById(ctx.database.db, id);
  if (!row || row.revoked_at !== null) throw notFound('Calendar feed', `No live calendar feed ${id}.`);
  await revokeCalendarFeed({ ...ctx, communityId: row.community_id }, id);
  return row.community_id;
}

/**
 * Writes what a feed shows now (new entries, raised SEQUENCEs, cancellations) when a render found
 * it changed: under the feed row's lock, against the entries read again, so that two renders of the
 * same change (two instances) raise a SEQUENCE once. Touches no view: the answers it affects are the
 * feed's own, rendered from this very outcome.
 */
export async function settleCalendarFeed(
  ctx: CommandContext,
  {
    feedId,
    events,
    now,
    endsFrom,
    pastMicros,
  }: { feedId: string; events: readonly FeedEvent[]; now: EpochMicros; endsFrom: EpochMicros; pastMicros: number },
): Promise<SettledFeed> {
  const { communityId } = ctx;
  return writeCommunityData(ctx, communityId, async (w) => {
    await lockCalendarFeed(w.tx, communityId, feedId);
    const entries = await selectFeedEntries(w.tx, communityId, feedId);
    const settled = settleFeed(events, entries, now, endsFrom, pastMicros);
    if (settled.upserts.length > 0) await upsertFeedEntries(w.tx, communityId, feedId, settled.upserts);
    if (settled.deletes.length > 0) await deleteFeedEntries(w.tx, communityId, feedId, settled.deletes);
    return settled;
  });
}
