import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../services.js';
import { calendarEventsRoutes } from './calendar-events/calendar-events.routes.js';
import { feedsRoutes } from './feeds/feeds.routes.js';
import { groupsRoutes } from './groups/groups.routes.js';
import { membersRoutes } from './members/members.routes.js';

/** Every resource module's routes, registered under /admin/v0 by buildApp. */
export const moduleRoutes: FastifyPluginAsync<ModuleOptions>[] = [calendarEventsRoutes, membersRoutes, groupsRoutes, feedsRoutes];
