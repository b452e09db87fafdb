import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../http/common.schemas.js';
import { principalOf } from '../../http/request-context.js';
import type { ModuleOptions } from '../../services.js';
import { postsRoutes } from '../posts/posts.routes.js';
import { FeedParamsSchema, FeedSchema } from './feeds.schemas.js';
import { getFeed } from './feeds.service.js';

/** `GET /feeds/{feed_id}`, plus the posts list of a feed (registered from here). */
export const feedsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const { database } = options.services;

  app.get(
    '/admin/v0/feeds/:feed_id',
    {
      config: { operation: 'feeds.get' },
      schema: {
        tags: ['Feeds'],
        summary: 'Retrieve a feed',
        params: FeedParamsSchema,
        response: { 200: Type.Object({ success: Type.Literal(true), data: FeedSchema }), ...errorResponses(400, 404) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getFeed(database, principalOf(request).communityId, request.params.feed_id),
    }),
  );

  await app.register(postsRoutes, options);
};
