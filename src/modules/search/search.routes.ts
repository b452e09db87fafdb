import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { sendJsonBytes } from '../../routing/json-reply.js';
import { principalOf, refusalIn } from '../../routing/request-context.js';
import { errorResponses, PagedListSchema } from '../../schemas/common.schemas.js';
import { andThen } from '../../shared/maybe-async.js';
import { PostSchema } from '../posts/posts.schemas.js';
import { readSearch, searchOperation } from './search.reads.js';
import { searchText } from './search.rules.js';
import { SearchQuerySchema } from './search.schemas.js';

/** `GET /search`: ranked full-text search over the community's posts (docs/search.md). */
export const searchRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  app.get(
    '/admin/v0/search',
    {
      config: { operation: 'search', costBudget: true, refusalPath: refusalIn('query') },
      schema: {
        tags: ['Feeds'],
        summary: 'Search the posts of the community',
        description:
          'Posts whose title, body or author name match, from every feed that is neither archived nor unlisted, records shaped as ' +
          '`GET /feeds/{feed_id}/posts` answers them. Ranked: more query terms in the title first, then more in the body or ' +
          'author name, then latest_activity_at (newest first), then id.',
        querystring: SearchQuerySchema,
        response: { 200: Type.Object({ success: Type.Literal(true), data: PagedListSchema(PostSchema) }), ...errorResponses(400) },
      },
    },
    (request, reply) => {
      // Checked before the cache so that a bad query is a 400 whatever is cached (and costs nothing).
      searchText(request.query.q);
      const communityId = principalOf(request).communityId;
      const meter = request.costMeter;
      if (!meter) return sendJsonBytes(reply, readSearch(options.services, communityId, request.query, null));
      // Admitted at what the same search cost last time; settled at what it cost (nothing when the answer was cached).
      return andThen(meter.admit(searchOperation(communityId, request.query)), () => {
        let body: ReturnType<typeof readSearch>;
        try {
          body = readSearch(options.services, communityId, request.query, meter);
        } catch (error) {
          meter.settle();
          throw error;
        }
        if (Buffer.isBuffer(body)) {
          meter.settle();
          return sendJsonBytes(reply, body);
        }
        return sendJsonBytes(
          reply,
          body.finally(() => meter.settle()),
        );
      });
    },
  );
};
