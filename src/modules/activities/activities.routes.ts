import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { ModuleOptions } from '../../dependencies.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses } from '../../schemas/common.schemas.js';
import { activityExportMediaTypes, activityExportText } from './activities.export.js';
import {
  ActivityExportFileSchema,
  type ActivityExportFormat,
  ActivityListResponseSchema,
  ExportActivitiesQuerySchema,
  ListActivitiesQuerySchema,
} from './activities.schemas.js';
import { activityFilter, pageActivities } from './reads/pages.js';

/**
 * GET /activities: the community's activity log (docs/activity.md); GET /activities/export: the same
 * records as a file. Plan and permission: routeRules.
 */
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

  app.get(
    '/admin/v0/activities/export',
    {
      config: { operation: 'activities.export' },
      schema: {
        tags: ['Activities', 'extension'],
        operationId: 'exportActivities',
        summary: "The community's activity log as a file (JSON Lines or CSV), oldest first, streamed",
        description:
          'Every record the filters match (those of GET /activities), oldest first in chain order, as `community-admin activity export` writes them: `jsonl`, one record per line exactly as GET /activities answers it; `csv`, one column per field (`context` split into `request_id`, `ip`, `user_agent`; `changes` and `metadata` as JSON). Streamed as the records are read, a thousand at a time: the answer has no length, and a record appended while it is read is in it. A bad filter is a 400 before anything is sent.',
        querystring: ExportActivitiesQuerySchema,
        response: {
          200: {
            description: 'The file (Content-Disposition: attachment).',
            content: {
              'application/x-ndjson': { schema: ActivityExportFileSchema },
              'text/csv': { schema: ActivityExportFileSchema },
            },
          },
          ...errorResponses(400, 403),
        },
      },
    },
    async (request, reply) => {
      const { format, ...query } = request.query;
      // Checked before the first byte: a bad value is a 400 in the envelope, never a cut file.
      const filter = activityFilter(query, (field) => `querystring.${field}`);
      return sendFile(reply, format, activityExportText(services.database.db, principalOf(request).communityId, format, filter));
    },
  );
};

/** Streams the file with back-pressure: memory stays flat whatever the log's size (its schema documents it, no serialiser runs). */
function sendFile(reply: FastifyReply, format: ActivityExportFormat, text: AsyncGenerator<string>): FastifyReply {
  return reply
    .type(activityExportMediaTypes[format])
    .header('content-disposition', `attachment; filename="activity.${format}"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(text));
}
