import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { ModuleOptions } from '../../dependencies.js';
import { commandContext } from '../../routing/command-context.js';
import { sendJsonBytes, sendJsonText } from '../../routing/json-reply.js';
import { principalOf, refusalIn } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders, idempotentErrorStatuses } from '../../schemas/common.schemas.js';
import type { Failure } from '../../shared/failures.js';
import { readCalendarEvent, readCalendarEventList } from './calendar-events.reads.js';
import { setAttendee } from './commands/attendees.js';
import { createEvent, deleteEvent, updateEvent, type WrittenEvent } from './commands/events.js';
import {
  AttendeeBodySchema,
  CreateEventBodySchema,
  SuccessResponseSchema,
  UpdateEventBodySchema,
  WrittenEventResponseSchema,
} from './schemas/bodies.js';
import {
  DeleteResponseSchema,
  EventResponseSchema,
  GetParamsSchema,
  ListQuerySchema,
  ListResponseSchema,
  MutationParamsSchema,
} from './schemas/event.js';

const tags = ['Calendar events'];
const rules = 'Rules, tags, slugs and status transitions: docs/calendar-events.md ("Writing events").';

/**
 * A failure's path in the API's names: the commands name the event record's fields (the import's
 * `host_profile_ids[1]`, `tags[0].id`), the bodies name them `hosts[1]`, `tags[0]`.
 */
function bodyPath(path: Failure['path']): Failure['path'] {
  const [first, index, last] = path;
  if (first === 'host_profile_ids') return ['body', 'hosts', ...path.slice(1)];
  if (first === 'speaker_profile_ids') return ['body', 'speakers', ...path.slice(1)];
  if (first === 'tags' && typeof index === 'number' && last === 'id' && path.length === 3) return ['body', 'tags', index];
  return ['body', ...path];
}

/** The answer: the event spliced as GET shows it, with the message about channels when there is one. */
function sendWritten(reply: FastifyReply, written: WrittenEvent) {
  const message = written.message === undefined ? '' : `"message":${JSON.stringify(written.message)},`;
  return sendJsonText(reply, `{"success":true,${message}"data":${written.event}}`);
}

/** Every route of /calendar_events: the list, one event, create, update, delete, and the attendee update. */
export const calendarEventsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  app.get(
    '/admin/v0/calendar_events',
    {
      config: { operation: 'calendarEvents.list', refusalPath: refusalIn('query') },
      // The spec makes `page` nullable; in a query string that can only be `page=`, read as "default".
      preValidation: async (request) => {
        const query = request.query as Record<string, unknown>;
        if (query.page === '') delete query.page;
      },
      schema: {
        tags,
        summary: 'List calendar events',
        description: 'Paged; published upcoming events by default. See docs/calendar-events.md for the filter semantics.',
        querystring: ListQuerySchema,
        response: { 200: ListResponseSchema, ...errorResponses(400) },
      },
    },
    (request, reply) => {
      return sendJsonBytes(reply, readCalendarEventList(services, principalOf(request).communityId, request.query));
    },
  );

  app.get(
    '/admin/v0/calendar_events/:calendar_event_id',
    {
      config: { operation: 'calendarEvents.get' },
      schema: {
        tags,
        summary: 'Retrieve a calendar event',
        params: GetParamsSchema,
        response: { 200: EventResponseSchema, ...errorResponses(400, 404) },
      },
    },
    (request, reply) => {
      return sendJsonBytes(reply, readCalendarEvent(services, principalOf(request).communityId, request.params.calendar_event_id));
    },
  );

  app.delete(
    '/admin/v0/calendar_events/:calendar_event_id',
    {
      config: { operation: 'calendarEvents.delete' },
      schema: {
        tags,
        summary: 'Delete a calendar event',
        params: MutationParamsSchema,
        headers: IdempotencyHeaders,
        response: { 200: DeleteResponseSchema, ...errorResponses(...idempotentErrorStatuses, 404) },
      },
    },
    async (request) => {
      const data = await deleteEvent(commandContext(request, services), request.params.calendar_event_id);
      return { success: true as const, data };
    },
  );

  app.patch(
    '/admin/v0/calendar_events/:calendar_event_id/attendees',
    {
      config: { operation: 'calendarEvents.upsertAttendee', bodyTypes: ['json'], refusalPath: bodyPath },
      schema: {
        tags,
        summary: 'Add an attendee to a calendar event or update their personal join link',
        params: MutationParamsSchema,
        headers: IdempotencyHeaders,
        body: AttendeeBodySchema,
        response: { 200: SuccessResponseSchema, ...errorResponses(...idempotentErrorStatuses, 404, 413, 415) },
      },
    },
    async (request) => {
      await setAttendee(commandContext(request, services), { eventId: request.params.calendar_event_id, body: request.body });
      return { success: true as const };
    },
  );

  // Registered after the routes above, as they were when they were a plugin of their own: the
  // OpenAPI document lists each path's methods in registration order.
  app.post(
    '/admin/v0/calendar_events',
    {
      config: { operation: 'calendarEvents.create', bodyTypes: ['json'], refusalPath: bodyPath },
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
      const written = await createEvent(commandContext(request, services), request.body);
      reply.code(201).header('location', `/admin/v0/calendar_events/${written.id}`);
      return sendWritten(reply, written);
    },
  );

  app.patch(
    '/admin/v0/calendar_events/:calendar_event_id',
    {
      config: { operation: 'calendarEvents.update', bodyTypes: ['json'], refusalPath: bodyPath },
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
      const written = await updateEvent(commandContext(request, services), { id: request.params.calendar_event_id, body: request.body });
      return sendWritten(reply, written);
    },
  );
};
