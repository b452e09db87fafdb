import { type AdminClient, type ListRecord, type paths, unwrap } from '@community-admin/client';
import type { Page } from '../../shared/paged-table.js';

export type CalendarEvent = ListRecord<paths, '/admin/v0/calendar_events'>;
export type TimeFilter = 'upcoming' | 'past' | 'all';
export type EventStatus = 'published' | 'needs_approval' | 'draft';

export interface EventFilters {
  time: TimeFilter;
  status: EventStatus;
  page: number;
}

export interface EventInput {
  title: string;
  start_date: string;
  end_date: string | null;
  location: string;
  status: 'published' | 'needs_approval';
  description_text?: string;
}

export const perPage = 20;

export async function listEvents(client: AdminClient<paths>, filters: EventFilters): Promise<Page<CalendarEvent>> {
  const body = unwrap(
    await client.GET('/admin/v0/calendar_events', {
      params: { query: { time_filter: filters.time, status: filters.status, page: filters.page, per_page: perPage } },
    }),
  );
  return body.data as Page<CalendarEvent>;
}

/** The events of a month (at most 200 of the status, every time), for the month view. */
export async function eventsOfMonth(client: AdminClient<paths>, status: EventStatus, month: Date): Promise<CalendarEvent[]> {
  const start = new Date(month.getFullYear(), month.getMonth(), 1).getTime();
  const end = new Date(month.getFullYear(), month.getMonth() + 1, 1).getTime();
  const found: CalendarEvent[] = [];
  let seen = 0;
  for await (const event of client.paginate('/admin/v0/calendar_events', {
    params: { query: { time_filter: 'all', status, per_page: 50 } },
  })) {
    const at = Date.parse(event.start_date ?? '');
    if (at >= start && at < end) found.push(event);
    if (++seen >= 200) break;
  }
  return found;
}

export async function createEvent(client: AdminClient<paths>, input: EventInput): Promise<void> {
  unwrap(await client.POST('/admin/v0/calendar_events', { body: input }));
}

export async function updateEvent(client: AdminClient<paths>, id: string, input: EventInput): Promise<void> {
  unwrap(await client.PATCH('/admin/v0/calendar_events/{calendar_event_id}', { params: { path: { calendar_event_id: id } }, body: input }));
}

export async function deleteEvent(client: AdminClient<paths>, id: string): Promise<void> {
  unwrap(await client.DELETE('/admin/v0/calendar_events/{calendar_event_id}', { params: { path: { calendar_event_id: id } } }));
}

export async function setAttendee(client: AdminClient<paths>, id: string, chatUserId: string, joinLink: string): Promise<void> {
  unwrap(
    await client.PATCH('/admin/v0/calendar_events/{calendar_event_id}/attendees', {
      params: { path: { calendar_event_id: id } },
      body: { user: { chat_user_id: chatUserId }, ...(joinLink ? { personal_join_link: joinLink } : {}) },
    }),
  );
}
