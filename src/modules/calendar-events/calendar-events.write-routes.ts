import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { ModuleOptions } from '../../dependencies.js';
import { sendJsonText } from '../../routing/json-reply.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders, idempotentErrorStatuses } from '../../schemas/common.schemas.js';
import { withDeadline } from '../../shared/request-deadline.js';
import { MutationParamsSchema } from './calendar-events.schemas.js';
import { createCalendarEvent, updateCalendarEvent, type WrittenEvent } from './calendar-events.write.js';
import { CreateEventBodySchema, UpdateEventBodySchema, WrittenEventResponseSchema } from './calendar-events.write-schemas.js';

const tags = ['Calendar events'];
const rules = 'Rules, tags, slugs and status transitions: docs/calendar-events.md ("Writing events").';

/** The answer: the event spliced as GET shows it, with the message about channels when there is one. */
function sendWritten(reply: FastifyReply, written: WrittenEvent) {
  const message = written.message === undefined ? '' : `"message":${JSON.stringify(written.message)},`;
  return sendJsonText(reply, `{"success":true,${message}"data":${written.event}}`);
}

/** POST /calendar_events and PATCH /calendar_events/{id}. */
export const calendarEventWriteRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  const deps = services;

  app.post(
    '/admin/v0/calendar_events',
    {
      config: { operation: 'calendarEvents.create', bodyTypes: ['json'] },
      schema: {
        tags,
        summary: 'Create a calendar event',
        description: `Answers 201 with the event exactly as GET /calendar_events/{id} shows it. ${rules}`,
        headers: IdempotencyHeaders,
        body: CreateEventBodySchema,
        response: { 201: WrittenEventResponseSchema, ...errorResponses(...idempotentErrorStatuses, 413, 415) },
      },
    },
    async (request, reply) => {
      const written = await createCalendarEvent(withDeadline(request, deps), principalOf(request).communityId, request.body);
      reply.code(201).header('location', `/admin/v0/calendar_events/${written.id}`);
      return sendWritten(reply, written);
    },
  );

  app.patch(
    '/admin/v0/calendar_events/:calendar_event_id',
    {
      config: { operation: 'calendarEvents.update', bodyTypes: ['json'] },
      schema: {
        tags,
        summary: 'Update a calendar event',
        description: `Partial update: an absent field is unchanged, null clears what may be null. ${rules}`,
        params: MutationParamsSchema,
        headers: IdempotencyHeaders,
        body: UpdateEventBodySchema,
        response: { 200: WrittenEventResponseSchema, ...errorResponses(...idempotentErrorStatuses, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const { communityId } = principalOf(request);
      return sendWritten(
        reply,
        await updateCalendarEvent(withDeadline(request, deps), communityId, request.params.calendar_event_id, request.body),
      );
    },
  );
};
