import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { sendJsonBytes } from '../../routing/json-reply.js';
import { principalOf } from '../../routing/request-context.js';
import { errorResponses, IdempotencyHeaders, idempotentErrorStatuses } from '../../schemas/common.schemas.js';
import { withDeadline } from '../../shared/request-deadline.js';
import {
  AttendeeBodySchema,
  DeleteResponseSchema,
  EventResponseSchema,
  GetParamsSchema,
  ListQuerySchema,
  ListResponseSchema,
  MutationParamsSchema,
  SuccessResponseSchema,
} from './calendar-events.schemas.js';
import { deleteCalendarEvent, readCalendarEvent, readCalendarEventList, upsertAttendee } from './calendar-events.service.js';

const tags = ['Calendar events'];

/** GET/DELETE /calendar_events(/{id}) and PATCH /calendar_events/{id}/attendees. */
export const calendarEventsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  app.get(
    '/admin/v0/calendar_events',
    {
      config: { operation: 'calendarEvents.list' },
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
      const data = await deleteCalendarEvent(
        withDeadline(request, services),
        principalOf(request).communityId,
        request.params.calendar_event_id,
      );
      return { success: true as const, data };
    },
  );

  app.patch(
    '/admin/v0/calendar_events/:calendar_event_id/attendees',
    {
      config: { operation: 'calendarEvents.upsertAttendee', bodyTypes: ['json'] },
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
      const { communityId } = principalOf(request);
      await upsertAttendee(withDeadline(request, services), communityId, request.params.calendar_event_id, request.body);
      return { success: true as const };
    },
  );
};
