import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../services.js';

/** Routes of this module (being written: see its issue). */
export const groupsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async () => {};
