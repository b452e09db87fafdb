import { ApiError } from '../../errors.js';
import { systemActor } from '../../shared/activity.js';
import { toIso } from '../../shared/clock.js';
import type { Plan } from '../../shared/plans.js';
import { addMillis, type DurationMs, type EpochMillis } from '../../shared/time.js';
import { type CommunityWrite, type WriteDeps, writeCommunityData } from '../../write-path/write-community-data.js';
import { recordEvent } from '../activities/commands/record-event.js';
import { consoleSessionLabel, createConsoleSessionKey } from '../api-keys/api-keys.commands.js';
import { selectCommunity } from '../communities/communities.queries.js';
import { communityNotFound } from '../communities/communities.reads.js';
import { deleteConsoleLinksExpiredBy, insertConsoleLink, selectConsoleLink, useConsoleLink } from './console-sessions.queries.js';
import { hashLinkToken, newLinkToken } from './console-sessions.rules.js';

/** What the console-sessions module's commands are given. */
export type ConsoleSessionDeps = WriteDeps;

/** A new one-time link's token (shown once, in the URL) and until when it works. */
export interface CreatedConsoleLink {
  token: string;
  community_id: string;
  expires_at: string;
}

/** A console session, as the sign-in answers it: its key's secret (shown once), id and expiry, and the community. */
export interface ConsoleSession {
  key: string;
  key_id: string;
  expires_at: string;
  community: { id: string; name: string; plan: Plan };
}

/** Why a link was refused: for the server's own records only, never told to the caller. */
export type LinkRefusal = 'unknown' | 'used' | 'expired';

/**
 * Makes a one-time console link of a community, working for `lifetimeMs` (the caller checked it:
 * `parseLinkLifetime`). Links that stopped working are deleted meanwhile: refused either way.
 */
export async function createConsoleLink(
  { database, clock, communityId }: Pick<ConsoleSessionDeps, 'database' | 'clock'> & { readonly communityId: string },
  lifetimeMs: DurationMs,
): Promise<CreatedConsoleLink> {
  if (!(await selectCommunity(database.db, communityId))) throw communityNotFound(communityId);
  const now = clock.now();
  await deleteConsoleLinksExpiredBy(database.db, now);
  const token = newLinkToken();
  const expiresAt = addMillis(now, lifetimeMs);
  await insertConsoleLink(database.db, {
    token_hash: hashLinkToken(token),
    community_id: communityId,
    created_at: now,
    expires_at: expiresAt,
    used_at: null,
  });
  return { token, community_id: communityId, expires_at: toIso(expiresAt) };
}

/**
 * The sign-in: uses the link of `token` (once, atomically) and opens a console session of its
 * community, in one transaction: a session is never made without using its link up, nor a link
 * used up without its session. A used, expired or unknown token is refused alike.
 */
export async function exchangeConsoleToken(
  ctx: ConsoleSessionDeps,
  { token, sessionMs }: { token: string; sessionMs: DurationMs },
): Promise<ConsoleSession> {
  const tokenHash = hashLinkToken(token);
  const link = await selectConsoleLink(ctx.database.db, tokenHash);
  if (!link) return refuseConsoleLink(ctx, 'unknown', null);
  const session = await writeCommunityData(ctx, link.community_id, async (w) => {
    const now = ctx.clock.now();
    if (!(await useConsoleLink(w.tx, tokenHash, now))) return null;
    return consoleSignedIn(w, now, sessionMs);
  });
  if (session) return session;
  return refuseConsoleLink(ctx, link.used_at !== null || link.expires_at > ctx.clock.now() ? 'used' : 'expired', link.community_id);
}

/**
 * A link was used: the session's key (every permission, kind `console`) is made in the same
 * transaction. The one place a sign-in succeeds (the activity log records `console.signed_in` here).
 */
async function consoleSignedIn(w: CommunityWrite, now: EpochMillis, sessionMs: DurationMs) {
  const community = await selectCommunity(w.tx, w.communityId);
  // The link's row is deleted with its community (foreign key): a used link names one that exists.
  if (!community) throw communityNotFound(w.communityId);
  const key = await createConsoleSessionKey(w, { now, lifetimeMs: sessionMs });
  // The session signs itself in: its key exists only inside this write, so the record names it here.
  w.record({
    action: 'console.signed_in',
    actor: { type: 'console', id: key.id, label: consoleSessionLabel },
    target: { type: 'api_key', id: key.id, name: consoleSessionLabel },
    metadata: { expires_at: key.expires_at },
  });
  return {
    key: key.key,
    key_id: key.id,
    expires_at: key.expires_at,
    community: { id: community.id, name: community.name, plan: community.plan },
  } satisfies ConsoleSession;
}

/**
 * A token was refused. The one place a sign-in fails (the activity log records
 * `console.link_refused` here); the answer is the same whatever the reason, so that it tells
 * nobody whether a token ever existed.
 */
async function refuseConsoleLink(deps: ConsoleSessionDeps, reason: LinkRefusal, communityId: string | null): Promise<never> {
  // The log is per community: an unknown token names none, so nothing is recorded for it.
  if (communityId !== null)
    await recordEvent(
      { ...deps, actor: systemActor('console sign-in'), communityId },
      {
        action: 'console.link_refused',
        target: { type: 'community', id: null, name: null },
        metadata: { reason },
      },
    );
  throw new ApiError('console_link_refused');
}
