import type { WebhookEventType } from '../rules/event-types.js';

/*
 * The example `data` of each event type that a test send carries (docs/webhooks.md, "Test sends"):
 * the shape of the real payload (the resource as the API answers it, abridged), with obviously
 * made-up values, and `test: true` first so that a receiver can tell it apart from a real event.
 */

const profileId = '00000000-0000-4000-8000-000000000001';
const member = {
  id: '00000000-0000-4000-8000-000000000002',
  email: 'test.member@example.com',
  full_name: 'Test Member',
  preferred_name: 'Test',
  avatar_url_original: null,
  chat_profile_id: null,
};
const calendarEvent = {
  id: 'TestEvent000',
  title: 'Test event (sent by a webhook test)',
  start_date: '2030-01-01T18:00:00+00:00',
  triggers_webhooks: true,
  webhook_custom_metadata: null,
};
const attendee = { profile_id: profileId, chat_user_id: 'U00TEST0000', personal_join_link: null };
const post = {
  id: 'test-post-0001',
  feed_id: '00000000-0000-4000-8000-000000000003',
  title: 'Test post (sent by a webhook test)',
  body_plaintext: 'Hello from a webhook test :wave:',
};

const samples: Record<WebhookEventType, Record<string, unknown>> = {
  'calendar_event.created': calendarEvent,
  'calendar_event.updated': calendarEvent,
  'calendar_event.deleted': calendarEvent,
  'calendar_event.registration.created': { calendar_event: calendarEvent, attendee },
  'calendar_event.registration.updated': {
    calendar_event: calendarEvent,
    attendee: { ...attendee, personal_join_link: 'https://meet.example.com/test' },
  },
  'member.created': member,
  'member.updated': member,
  'member.deactivated': member,
  'group.member_added': { group_id: 'test-group', profile_id: profileId, added_at: '2030-01-01T18:00:00.000Z' },
  'post.created': post,
  'post.updated': post,
  'post.deleted': post,
  'award.assigned': {
    award: { id: '00000000-0000-4000-8000-000000000004', name: 'Test award', description: null, emoji: ':trophy:' },
    recipient_profile_id: profileId,
    sender_profile_id: null,
    send_anonymously: false,
    assigned_at: '2030-01-01T18:00:00.000000+00:00',
  },
};

/** The `data` of a test send of `type`: `{test: true, ...example}`. */
export function sampleEventData(type: WebhookEventType): Record<string, unknown> {
  return { test: true, ...samples[type] };
}
