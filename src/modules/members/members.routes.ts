import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ModuleOptions } from '../../dependencies.js';
import { commandContext } from '../../routing/command-context.js';
import { sendJsonText } from '../../routing/json-reply.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders, PagedListSchema } from '../../schemas/common.schemas.js';
import { pagedListEnvelope } from '../../schemas/json-text.js';
import { type AddMemberResult, addMember, deactivateMember } from './members.commands.js';
import { checkMembership, listMembers } from './members.reads.js';
import {
  AddMemberBodySchema,
  addMemberResponse,
  CheckMemberBodySchema,
  CheckMemberResponseSchema,
  DeactivateMemberResponseSchema,
  ListMembersQuerySchema,
  MemberIdParamsSchema,
  MemberListRecordSchema,
} from './members.schemas.js';

/**
 * Trims the email and name before validation, so that " Ada@Example.com " is checked (format,
 * length) as the address it stands for, and turns an empty avatar URL (the only way a form can say
 * "none") into null.
 */
async function normaliseMemberBody(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const fields = body as Record<string, unknown>;
  for (const key of ['email', 'full_name']) {
    const value = fields[key];
    if (typeof value === 'string') fields[key] = value.trim();
  }
  if (fields.avatar_url_original === '') fields.avatar_url_original = null;
}

// Documents in OpenAPI that these bodies may be form-encoded too (decisions.md, request bodies).
const formOrJson = ['application/json', 'application/x-www-form-urlencoded'];

function addMessage(result: AddMemberResult): string {
  if (result.created) return 'Member created.';
  return result.reactivated ? 'Member already existed; it was updated and reactivated.' : 'Member already existed; it was updated.';
}

/** GET /members (extension), POST /members, POST /members/check and POST /members/{member_id}/deactivate. */
export const membersRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const deps = services;

  // The console's member list (issue 39): a documented extension of the spec.
  app.get(
    '/admin/v0/members',
    {
      config: { operation: 'members.list' },
      schema: {
        tags: ['Members', 'extension'],
        operationId: 'listMembers',
        summary: 'List members, searched by name or email, filtered by status, sorted by name or join date',
        description:
          'Extension. Paged, with exact totals. Records are the member object of `POST /members` plus `is_deactivated` and `joined_at`; forgotten members are never listed. Ties of a sort are broken by id, so pages are stable. See docs/members.md ("The member list").',
        querystring: ListMembersQuerySchema,
        response: {
          200: Type.Object({ success: Type.Literal(true), data: PagedListSchema(MemberListRecordSchema) }),
          ...errorResponses(400),
        },
      },
    },
    async (request, reply) => {
      const { records, ...meta } = await listMembers(deps, principalOf(request).communityId, request.query);
      return sendJsonText(reply, pagedListEnvelope(meta, records));
    },
  );

  app.post(
    '/admin/v0/members',
    {
      config: { operation: 'members.add', bodyTypes: ['json', 'form'] },
      preValidation: normaliseMemberBody,
      schema: {
        tags: ['Members'],
        operationId: 'addMember',
        summary: 'Add a member (or update the member holding the email), optionally inviting them to the chat workspace',
        description: 'Requires the Enterprise plan. 201 when a member is created, 200 when an existing one is updated (and reactivated).',
        consumes: formOrJson,
        headers: IdempotencyHeaders,
        body: AddMemberBodySchema,
        response: {
          200: addMemberResponse('A member already held the email: it was updated (and reactivated if it was not active).'),
          201: addMemberResponse('A new member was created.'),
          ...errorResponses(400, 403, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const result = await addMember(commandContext(request, deps), request.body);
      if (result.chatInvite)
        request.log.info({ chat_invite_status: result.chatInvite.status, chat_invite_code: result.chatInvite.code }, 'chat invitation');
      const data = result.chatInvite ? { member: result.member, chat_invite: result.chatInvite } : { member: result.member };
      return reply.code(result.created ? 201 : 200).send({ success: true as const, message: addMessage(result), data });
    },
  );

  app.post(
    '/admin/v0/members/check',
    {
      config: { operation: 'members.check', bodyTypes: ['json', 'form'] },
      preValidation: normaliseMemberBody,
      schema: {
        tags: ['Members'],
        operationId: 'checkMember',
        summary: 'Check whether a member holds an email (never fails for an unknown email)',
        consumes: formOrJson,
        headers: IdempotencyHeaders,
        body: CheckMemberBodySchema,
        response: { 200: CheckMemberResponseSchema, ...errorResponses(400, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const data = await checkMembership(deps, principalOf(request).communityId, request.body.email);
      return { success: true as const, data };
    },
  );

  app.post(
    '/admin/v0/members/:member_id/deactivate',
    {
      config: { operation: 'members.deactivate' },
      schema: {
        tags: ['Members'],
        operationId: 'deactivateMember',
        summary: 'Deactivate a member (not one linked to a chat profile)',
        description: 'Requires the Enterprise plan. 409 member_has_chat_profile for a member linked to a chat profile.',
        headers: IdempotencyHeaders,
        params: MemberIdParamsSchema,
        response: { 200: DeactivateMemberResponseSchema, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      const { member, alreadyDeactivated } = await deactivateMember(commandContext(request, deps), request.params.member_id);
      const message = alreadyDeactivated ? 'Member was already deactivated.' : 'Member deactivated.';
      return { success: true as const, message, data: { member, already_deactivated: alreadyDeactivated } };
    },
  );
};
