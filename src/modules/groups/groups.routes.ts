import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { refusalAsValidationFailed } from '../../errors.js';
import { commandDeps } from '../../routing/command-context.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders } from '../../schemas/common.schemas.js';
import { addGroupMember } from './groups.commands.js';
import { AddGroupMemberBodySchema, AddGroupMemberResponseSchema, GroupIdParamsSchema } from './groups.schemas.js';

/** POST /groups/{group_id}/members. */
export const groupsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const deps = { database: services.database, clock: services.clock };

  app.post(
    '/admin/v0/groups/:group_id/members',
    {
      config: { operation: 'groups.addMember', bodyTypes: ['json'] },
      schema: {
        tags: ['Groups'],
        operationId: 'addGroupMember',
        summary: 'Add a user (by chat user id, email or profile id) to a group',
        description: 'Answers 200 with just success when added, and 200 with a message when the user already was a member.',
        headers: IdempotencyHeaders,
        params: GroupIdParamsSchema,
        body: AddGroupMemberBodySchema,
        response: { 200: AddGroupMemberResponseSchema, ...errorResponses(400, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const { alreadyMember } = await addGroupMember(
        commandDeps(request, deps),
        principalOf(request).communityId,
        request.params.group_id,
        request.body.user,
      ).catch((error: unknown) => {
        throw refusalAsValidationFailed(error);
      });
      return alreadyMember
        ? { success: true as const, message: 'The user is already a member of this group.' }
        : { success: true as const };
    },
  );
};
