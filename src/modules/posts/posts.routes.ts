import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, PagedListSchema } from '../../http/common.schemas.js';
import { pagedListEnvelope, sendJsonBytes } from '../../http/json-text.js';
import { principalOf } from '../../http/request-context.js';
import type { ModuleOptions } from '../../services.js';
import { ListPostsQuerySchema, PostSchema, PostsParamsSchema } from './posts.schemas.js';
import { listPosts } from './posts.service.js';

/** `GET /feeds/{feed_id}/posts`: a page of a feed's posts, or of the Home feed's. */
export const postsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const { database, clock, counts, responses } = options.services;

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
    (request, reply) => {
      const { communityId } = principalOf(request);
      const { feed_id: feedId } = request.params;
      const { page, per_page: perPage, sort } = request.query;
      const now = clock.now();
      // Posts do not depend on time: an answer holds until the community's posts change.
      const key = `list ${feedId.toLowerCase()} ${sort} ${page} ${perPage}`;
      const body = responses.body(database, communityId, 'posts_version', key, now, async () => {
        const { records, ...meta } = await listPosts(database, communityId, feedId, request.query, counts, now);
        return { body: pagedListEnvelope(meta, records), validUntil: Number.POSITIVE_INFINITY };
      });
      return sendJsonBytes(reply, body);
    },
  );
};
