import type { WebhookEventType } from '../../../shared/webhook-event-types.js';

// The closed list lives in src/shared/ so that the tables' types (src/db/schema.ts) and the write
// path can name it without importing this module; the module speaks it from here.
export { isWebhookEventType, type WebhookEventType, webhookEventTypes } from '../../../shared/webhook-event-types.js';

/** Calendar-event types are sent only for events whose `triggers_webhooks` is true. */
export const isCalendarEventType = (type: WebhookEventType): boolean => type.startsWith('calendar_event.');

/** One line per type, for the console's event catalogue (`GET /webhook_event_types`; docs/webhooks.md has the payloads). */
export const webhookEventTypeDescriptions: Readonly<Record<WebhookEventType, string>> = {
  'calendar_event.created': 'A calendar event was created (only events whose triggers_webhooks is true).',
  'calendar_event.updated': 'A calendar event was changed (only events whose triggers_webhooks is true).',
  'calendar_event.deleted': 'A calendar event was deleted; data is the event as it was (triggers_webhooks events only).',
  'calendar_event.registration.created': 'An attendee was added to a calendar event.',
  'calendar_event.registration.updated': "An attendee's personal join link changed.",
  'member.created': 'A member was created.',
  'member.updated': 'A member was updated, reactivated, or linked to its chat profile by the chat sync.',
  'member.deactivated': 'A member was deactivated.',
  'group.member_added': 'A profile was added to a group.',
  'post.created': 'The chat sync created a post from a new message.',
  'post.updated': 'The chat sync changed a post (an edited message).',
  'post.deleted': 'The chat sync deleted a post (a deleted message); data is the post as it was.',
  'award.assigned': 'A member was given an award they did not hold.',
};
