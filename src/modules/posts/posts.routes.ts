import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, PagedListSchema } from '../../http/common.schemas.js';
import { principalOf } from '../../http/request-context.js';
import type { ModuleOptions } from '../../services.js';
import { ListPostsQuerySchema, PostSchema, PostsParamsSchema } from './posts.schemas.js';
import { listPosts } from './posts.service.js';

/** `GET /feeds/{feed_id}/posts`: a page of a feed's posts, or of the Home feed's. */
export const postsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const { database } = options.services;

  app.get(
    '/admin/v0/feeds/:feed_id/posts',
    {
      config: { operation: 'posts.list' },
      schema: {
        tags: ['Feeds'],
        summary: 'List the posts of a feed (or of the Home feed)',
        params: PostsParamsSchema,
        querystring: ListPostsQuerySchema,
        response: { 200: Type.Object({ success: Type.Literal(true), data: PagedListSchema(PostSchema) }), ...errorResponses(400, 404) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listPosts(database, principalOf(request).communityId, request.params.feed_id, request.query, options.services.counts, options.services.clock.now()),
    }),
  );
};
