import { Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../schemas/common.schemas.js';
import { webhookEventTypes } from './event-types.js';

const EventTypeSchema = StringEnum(webhookEventTypes, { description: 'A webhook event type (docs/webhooks.md).' });

export const WebhookEndpointSchema = Type.Object(
  {
    id: Uuid(),
    url: Type.String({ description: 'Where deliveries are POSTed.' }),
    events: Type.Union([Type.Array(EventTypeSchema), Type.Null()], { description: 'The event types sent; null is every type.' }),
    disabled: Type.Boolean({ description: 'True once the endpoint answered 410 or failed for longer than the retry schedule.' }),
    disabled_at: Type.Union([Timestamp(), Type.Null()]),
    disabled_reason: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp(),
  },
  { title: 'WebhookEndpoint' },
);

export const ListWebhookEndpointsResponseSchema = Type.Object({ success: Type.Literal(true), data: Type.Array(WebhookEndpointSchema) });

export const CreateWebhookEndpointBodySchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'An https URL whose host resolves to public addresses only; redirects are not followed.',
    }),
    events: Type.Optional(Type.Array(EventTypeSchema, { minItems: 1, maxItems: webhookEventTypes.length, uniqueItems: true })),
  },
  { additionalProperties: false },
);

export const CreatedWebhookEndpointResponseSchema = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    id: Uuid(),
    url: Type.String(),
    events: Type.Union([Type.Array(EventTypeSchema), Type.Null()]),
    secret: Type.String({ description: 'The `whsec_` signing secret. Shown in this answer only: store it now.' }),
    created_at: Timestamp(),
  }),
});

export const WebhookEndpointIdParamsSchema = Type.Object({ id: Uuid({ description: 'The webhook endpoint id.' }) });

export const DeletedWebhookEndpointResponseSchema = Type.Object({ success: Type.Literal(true) });
