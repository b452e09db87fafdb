import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { sendJsonBytes } from '../../routing/json-reply.js';
import { principalOf, refusalIn } from '../../routing/request-context.js';
import { errorResponses, PagedListSchema } from '../../schemas/common.schemas.js';
import { readPost, readPostsList } from './posts.reads.js';
import { ListPostsQuerySchema, PostParamsSchema, PostSchema, PostsParamsSchema } from './posts.schemas.js';

/** `GET /feeds/{feed_id}/posts`: a page of a feed's posts, or of the Home feed's; `GET /posts/{post_id}`: one post. */
export const postsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  app.get(
    '/admin/v0/feeds/:feed_id/posts',
    {
      config: { operation: 'posts.list', refusalPath: refusalIn({ feed_id: 'path' }) },
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
      return sendJsonBytes(reply, readPostsList(options.services, communityId, request.params.feed_id, request.query));
    },
  );

  app.get(
    '/admin/v0/posts/:post_id',
    {
      config: { operation: 'posts.get' },
      schema: {
        tags: ['Feeds'],
        summary: 'Retrieve a post',
        description: "One post exactly as the feed's posts list shows it.",
        params: PostParamsSchema,
        response: { 200: Type.Object({ success: Type.Literal(true), data: PostSchema }), ...errorResponses(400, 404) },
      },
    },
    (request, reply) => sendJsonBytes(reply, readPost(options.services, principalOf(request).communityId, request.params.post_id)),
  );
};
