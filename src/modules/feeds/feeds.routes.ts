import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { principalOf, refusalIn } from '../../routing/request-context.js';
import { errorResponses, PagedListSchema } from '../../schemas/common.schemas.js';
import { getFeed, listFeeds } from './feeds.reads.js';
import { FeedParamsSchema, FeedSchema, ListFeedsQuerySchema } from './feeds.schemas.js';

/** `GET /feeds` and `GET /feeds/{feed_id}`. */
export const feedsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const { database } = options.services;

  app.get(
    '/admin/v0/feeds',
    {
      config: { operation: 'feeds.list' },
      schema: {
        tags: ['Feeds'],
        summary: 'List the feeds of the community',
        description: 'Oldest first (created_at, then id). Records are shaped as `GET /feeds/{feed_id}`.',
        querystring: ListFeedsQuerySchema,
        response: { 200: Type.Object({ success: Type.Literal(true), data: PagedListSchema(FeedSchema) }), ...errorResponses(400) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listFeeds({ database }, principalOf(request).communityId, request.query),
    }),
  );

  app.get(
    '/admin/v0/feeds/:feed_id',
    {
      config: { operation: 'feeds.get', refusalPath: refusalIn({ feed_id: 'path' }) },
      schema: {
        tags: ['Feeds'],
        summary: 'Retrieve a feed',
        params: FeedParamsSchema,
        response: { 200: Type.Object({ success: Type.Literal(true), data: FeedSchema }), ...errorResponses(400, 404) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getFeed({ database }, principalOf(request).communityId, request.params.feed_id),
    }),
  );
};
