import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { commandContext } from '../../routing/command-context.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders, PagedListSchema, PageQuerySchema } from '../../schemas/common.schemas.js';
import { addGroupMember } from './groups.commands.js';
import { listGroups } from './groups.reads.js';
import { AddGroupMemberBodySchema, AddGroupMemberResponseSchema, GroupIdParamsSchema, GroupRecordSchema } from './groups.schemas.js';

/** GET /groups (extension) and POST /groups/{group_id}/members. */
export const groupsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const deps = { database: services.database, clock: services.clock };

  // The console's "add to a group" (issue 39): a documented extension.
  app.get(
    '/admin/v0/groups',
    {
      config: { operation: 'groups.list' },
      schema: {
        tags: ['Groups', 'extension'],
        operationId: 'listGroups',
        summary: "List the community's groups with their member counts",
        description: 'Extension. By name (byte order), ties by id; paged, with exact totals.',
        querystring: PageQuerySchema('Groups'),
        response: { 200: Type.Object({ success: Type.Literal(true), data: PagedListSchema(GroupRecordSchema) }), ...errorResponses(400) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await listGroups(deps, principalOf(request).communityId, request.query.page, request.query.per_page),
    }),
  );

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
      const { alreadyMember } = await addGroupMember(commandContext(request, deps), {
        groupId: request.params.group_id,
        user: request.body.user,
      });
      return alreadyMember
        ? { success: true as const, message: 'The user is already a member of this group.' }
        : { success: true as const };
    },
  );
};
