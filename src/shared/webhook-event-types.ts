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
