import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ModuleOptions } from '../../dependencies.js';
import { notFound } from '../../errors.js';
import { commandContext } from '../../routing/command-context.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders } from '../../schemas/common.schemas.js';
import { andThen } from '../../shared/maybe-async.js';
import { createCalendarFeed, memberCalendarFeed, revokeCalendarFeed } from './calendar-feeds.commands.js';
import { type FeedOptions, findLiveFeed, listCalendarFeeds, readCalendarFeed, splitFeedAnswer } from './calendar-feeds.reads.js';
import {
  CalendarFeedIdParamsSchema,
  CalendarFeedResponseSchema,
  CreateCalendarFeedBodySchema,
  FeedTokenParamsSchema,
  ListCalendarFeedsResponseSchema,
  MemberFeedParamsSchema,
  RevokedCalendarFeedResponseSchema,
} from './calendar-feeds.schemas.js';

const tags = ['Calendar feeds', 'extension'];

/** GET/POST /calendar_feeds, DELETE /calendar_feeds/{id}, POST /members/{member_id}/calendar_feed (docs/calendar-feeds.md). */
export const calendarFeedsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  app.get(
    '/admin/v0/calendar_feeds',
    {
      config: { operation: 'calendarFeeds.list' },
      schema: {
        tags,
        operationId: 'listCalendarFeeds',
        summary: "List the community's live calendar feeds (never their tokens)",
        response: { 200: ListCalendarFeedsResponseSchema, ...errorResponses(400, 403) },
      },
    },
    async (request) => ({ success: true as const, data: await listCalendarFeeds(services, principalOf(request).communityId) }),
  );

  app.post(
    '/admin/v0/calendar_feeds',
    {
      config: { operation: 'calendarFeeds.create', bodyTypes: ['json'] },
      schema: {
        tags,
        operationId: 'createCalendarFeed',
        summary: "Create a calendar subscription of the community's events; its URL is in this answer only",
        description:
          "The feed (`GET /calendar/{token}.ics`, no key) shows published events on the site ending CALENDAR_FEED_PAST_DAYS ago or later, optionally only those with a tag and with unlisted ones. Only the token's hash is kept: store the URL now.",
        headers: IdempotencyHeaders,
        body: CreateCalendarFeedBodySchema,
        response: { 201: CalendarFeedResponseSchema, ...errorResponses(400, 403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const feed = await createCalendarFeed(commandContext(request, services), request.body);
      return reply.code(201).send({ success: true as const, data: feed });
    },
  );

  app.delete(
    '/admin/v0/calendar_feeds/:id',
    {
      config: { operation: 'calendarFeeds.revoke' },
      schema: {
        tags,
        operationId: 'revokeCalendarFeed',
        summary: 'Revoke a calendar feed: its URL answers 404 from now on',
        headers: IdempotencyHeaders,
        params: CalendarFeedIdParamsSchema,
        response: { 200: RevokedCalendarFeedResponseSchema, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      await revokeCalendarFeed(commandContext(request, services), request.params.id);
      return { success: true as const };
    },
  );

  app.post(
    '/admin/v0/members/:member_id/calendar_feed',
    {
      config: { operation: 'calendarFeeds.member' },
      schema: {
        tags: ['Members', 'extension'],
        operationId: 'memberCalendarFeed',
        summary: "A member's own calendar feed (the events the member attends): the same URL on every call until it is revoked",
        description:
          '201 when this call created the feed, 200 with the same URL afterwards. Revoked with DELETE /calendar_feeds/{id}; the next call then makes a new URL.',
        headers: IdempotencyHeaders,
        params: MemberFeedParamsSchema,
        response: { 200: CalendarFeedResponseSchema, 201: CalendarFeedResponseSchema, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const { feed, created } = await memberCalendarFeed(commandContext(request, services), request.params.member_id);
      return reply.code(created ? 201 : 200).send({ success: true as const, data: feed });
    },
  );
};

/** True when If-None-Match names the ETag, either representation's (or is `*`); weak forms compare by their tag (RFC 9110). */
function matchesAny(header: string, etag: string): boolean {
  const gzipped = gzipTag(etag);
  return header.split(',').some((tag) => {
    const trimmed = tag.trim().replace(/^W\//, '');
    return trimmed === '*' || trimmed === etag || trimmed === gzipped;
  });
}

/** The ETag of the gzip representation: another representation, another strong validator (RFC 9110 8.8.3). */
const gzipTag = (etag: string): string => `${etag.slice(0, -1)}-gzip"`;

/** 304 when the client holds this version: If-None-Match first; If-Modified-Since only without it (RFC 9110 13.1.3). */
function notModified(request: FastifyRequest, etag: string, lastModified: string): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesAny(ifNoneMatch, etag);
  const since = request.headers['if-modified-since'];
  if (since === undefined) return false;
  const sinceMs = Date.parse(since);
  return !Number.isNaN(sinceMs) && Date.parse(lastModified) <= sinceMs;
}

/** True when the client takes gzip (calendar apps do): `gzip` listed without `q=0`. */
function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding'];
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip') return false;
    return !params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param));
  });
}

const gzipAsync = promisify(gzip);

/**
 * The gzip bytes of a cached feed, made once per cached answer (keyed by its Buffer, so they go when
 * it is evicted): a feed of 1,000 events is about a megabyte of text that compresses several times,
 * and calendar apps all accept gzip. Compressed on the thread pool, so the event loop goes on serving.
 */
const gzipped = new WeakMap<Buffer, Buffer | Promise<Buffer>>();

function gzipOf(cached: Buffer, ics: Buffer): Buffer | Promise<Buffer> {
  const known = gzipped.get(cached);
  if (known) return known;
  const pending = gzipAsync(ics).then((bytes) => {
    gzipped.set(cached, bytes);
    return bytes;
  });
  gzipped.set(cached, pending);
  pending.catch(() => gzipped.delete(cached));
  return pending;
}

function sendFeed(request: FastifyRequest, reply: FastifyReply, body: Buffer | string): void | Promise<void> {
  const { etag, lastModified, ics } = splitFeedAnswer(body);
  // Private: the URL is the secret, so no shared cache should keep (or serve) it.
  reply.header('cache-control', 'private, max-age=300').header('last-modified', lastModified).header('vary', 'accept-encoding');
  // Only a cached answer (a Buffer) is compressed: with the cache off, each request would compress again.
  const compress = Buffer.isBuffer(body) && Buffer.isBuffer(ics) && acceptsGzip(request);
  reply.header('etag', compress ? gzipTag(etag) : etag);
  if (notModified(request, etag, lastModified)) {
    reply.code(304).send();
    return;
  }
  reply.type('text/calendar; charset=utf-8');
  if (!compress) {
    reply.send(ics);
    return;
  }
  return andThen(gzipOf(body, ics as Buffer), (bytes) => {
    reply.header('content-encoding', 'gzip').send(bytes);
  });
}

/**
 * GET /calendar/{token}.ics: a feed, without an API key (calendar apps cannot send one), counted
 * against the calendar budgets per token and per address (`config.calendarBudget`). A revoked,
 * unknown or malformed token answers the same 404, which says nothing of whether it ever existed.
 */
export const calendarFeedDownloadRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const { database, config } = services;
  let options: FeedOptions | undefined;
  // The UID host is the public base URL's, known once the server listens (PORT=0 in tests).
  const optionsNow = (): FeedOptions => {
    options ??= { pastDays: config.calendarFeedPastDays, uidHost: new URL(services.publicBaseUrl()).hostname };
    return options;
  };
  app.get(
    '/calendar/:token.ics',
    {
      config: { public: true, calendarBudget: true, operation: 'calendar.feed' },
      schema: { hide: true, params: FeedTokenParamsSchema },
    },
    (request, reply) =>
      andThen(findLiveFeed(database, request.params.token), (feed) => {
        if (!feed) throw notFound('Calendar feed', 'Not found.');
        return andThen(readCalendarFeed(services, feed.community_id, feed, optionsNow()), (body) => sendFeed(request, reply, body));
      }),
  );
};
