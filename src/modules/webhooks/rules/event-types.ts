/** Every webhook event type this service sends (docs/webhooks.md has a sample payload of each). */
export const webhookEventTypes = [
  'calendar_event.created',
  'calendar_event.updated',
  'calendar_event.deleted',
  'calendar_event.registration.created',
  'calendar_event.registration.updated',
  'member.created',
  'member.updated',
  'member.deactivated',
  'group.member_added',
  'post.created',
  'post.updated',
  'post.deleted',
  'award.assigned',
] as const;

export type WebhookEventType = (typeof webhookEventTypes)[number];

export const isWebhookEventType = (value: string): value is WebhookEventType => (webhookEventTypes as readonly string[]).includes(value);

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
