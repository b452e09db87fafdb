import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses } from '../../schemas/common.schemas.js';
import { ActivityListResponseSchema, ListActivitiesQuerySchema } from './activities.schemas.js';
import { activityFilter, pageActivities } from './reads/pages.js';

/** GET /activities: the community's activity log (docs/activity.md). Plan and permission: routeRules. */
export const activitiesRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  app.get(
    '/admin/v0/activities',
    {
      config: { operation: 'activities.list' },
      schema: {
        tags: ['Activities', 'extension'],
        operationId: 'listActivities',
        summary: "The community's activity log: who changed what, when and from where, newest first",
        description:
          'One record per change, written in the same transaction as the change; each record is chained to the one before it by SHA-256 (`hash`), so that an edited or deleted record is found by `community-admin activity verify`. Filters combine; `action` takes one action or a family (`calendar_event.*`).',
        querystring: ListActivitiesQuerySchema,
        response: { 200: ActivityListResponseSchema, ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      const { page, per_page, ...query } = request.query;
      const filter = activityFilter(query, (field) => `querystring.${field}`);
      return { success: true as const, data: await pageActivities(services, principalOf(request).communityId, filter, page, per_page) };
    },
  );
};
