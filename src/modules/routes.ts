import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../dependencies.js';
import { activitiesRoutes } from './activities/activities.routes.js';
import { apiKeysRoutes } from './api-keys/api-keys.routes.js';
import { awardsRoutes } from './awards/awards.routes.js';
import { calendarEventsRoutes } from './calendar-events/calendar-events.routes.js';
import { calendarFeedDownloadRoutes, calendarFeedsRoutes } from './calendar-feeds/calendar-feeds.routes.js';
import { chatSyncJobsRoutes } from './chat-sync/routes/sync-jobs.js';
import { consoleSessionsRoutes } from './console-sessions/console-sessions.routes.js';
import { feedsRoutes } from './feeds/feeds.routes.js';
import { fileDownloadRoutes, filesRoutes } from './files/files.routes.js';
import { groupsRoutes } from './groups/groups.routes.js';
import { membersRoutes } from './members/members.routes.js';
import { postsRoutes } from './posts/posts.routes.js';
import { searchRoutes } from './search/search.routes.js';
import { webhookDeliveriesRoutes } from './webhooks/routes/deliveries.js';
import { webhooksRoutes } from './webhooks/routes/endpoints.js';

/** Every resource module's routes, registered under /admin/v0 by buildApp. */
export const moduleRoutes: FastifyPluginAsync<ModuleOptions>[] = [
  calendarEventsRoutes,
  membersRoutes,
  groupsRoutes,
  feedsRoutes,
  postsRoutes,
  searchRoutes,
  apiKeysRoutes,
  webhooksRoutes,
  filesRoutes,
  fileDownloadRoutes,
  webhookDeliveriesRoutes,
  awardsRoutes,
  consoleSessionsRoutes,
  chatSyncJobsRoutes,
  calendarFeedsRoutes,
  calendarFeedDownloadRoutes,
  activitiesRoutes,
];
