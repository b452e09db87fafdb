import type { Tx } from '../../../db/database.js';
import { ApiError, notFound } from '../../../errors.js';
import type { JsonText } from '../../../shared/json-text.js';
import type { CommandContext } from '../../../write-path/command-context.js';
import { writeCommunityData } from '../../../write-path/write-community-data.js';
import { selectProfileIdByKey } from '../../profiles/profiles.queries.js';
import { eventWebhookData } from '../calendar-events.reads.js';
import type { CalendarEventRow } from '../calendar-events.records.js';
import { insertAttendeeIfAbsent, updateAttendeeLink } from '../queries/children.js';
import { incrementAttendeesCount, selectCalendarEventRow } from '../queries/events.js';
import { joinLinkOf } from '../rules/event-body.js';
import type { AttendeeBody } from '../schemas/bodies.js';

const eventNotFound = () => notFound('Calendar event');

/** A registration's webhook data: the event and the attendee; undefined when the event sends none. */
async function registrationWebhookData(
  tx: Tx,
  communityId: string,
  row: CalendarEventRow | undefined,
  attendee: { profile_id: string; chat_user_id: string; personal_join_link: string | null },
): Promise<{ calendar_event: JsonText; attendee: typeof attendee } | undefined> {
  const event = await eventWebhookData(tx, communityId, row);
  return event && { calendar_event: event, attendee };
}

/**
 * Makes the community's profile with `user.chat_user_id` an attendee of the event (attendees_count
 * grows by one) or, when it already is one, updates its personal join link. All in one transaction.
 * `calendar_event.registration.updated` is emitted only when the link changed: the same link again
 * writes nothing and sends nothing. A link that is no http(s) URL is refused at `personal_join_link`.
 */
export async function setAttendee(ctx: CommandContext, { eventId, body }: { eventId: string; body: AttendeeBody }): Promise<void> {
  const { communityId } = ctx;
  const link = joinLinkOf(body.personal_join_link);
  await writeCommunityData(ctx, communityId, async (w) => {
    const { tx, now } = w;
    const event = await selectCalendarEventRow(tx, communityId, eventId);
    if (!event) throw eventNotFound();
    const profileId = await selectProfileIdByKey(tx, communityId, { column: 'chat_user_id', value: body.user.chat_user_id });
    if (!profileId) throw new ApiError('not_found', `No profile with chat_user_id "${body.user.chat_user_id}" in this community.`);
    const added = await insertAttendeeIfAbsent(tx, {
      community_id: communityId,
      event_id: eventId,
      profile_id: profileId,
      personal_join_link: link ?? null,
      now,
    });
    const attendee = { profile_id: profileId, chat_user_id: body.user.chat_user_id, personal_join_link: link ?? null };
    if (added) {
      // The event may have been deleted since it was checked (PostgreSQL): then nothing is kept.
      if (!(await incrementAttendeesCount(tx, communityId, eventId))) throw eventNotFound();
      // attendees_count is part of the event record: cached answers of it must go.
      w.touch('events');
      w.emit('calendar_event.registration.created', async () =>
        registrationWebhookData(tx, communityId, await selectCalendarEventRow(tx, communityId, eventId), attendee),
      );
    } else if (link !== undefined && (await updateAttendeeLink(tx, { communityId, eventId, profileId }, link, now))) {
      // A link changes nothing of the event record: it is rendered from the row read above.
      w.emit('calendar_event.registration.updated', () => registrationWebhookData(tx, communityId, event, attendee));
    } else return;
    w.record({
      action: 'calendar_event.attendees_updated',
      target: { type: 'calendar_event', id: eventId, name: null },
      metadata: { profile_id: profileId, chat_user_id: body.user.chat_user_id, registered: added },
      changes: added ? null : { personal_join_link: [null, link ?? null] },
    });
  });
}
