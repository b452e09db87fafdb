import { Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../../schemas/common.schemas.js';
import { webhookEventTypes } from '../../shared/webhook-event-types.js';

const EventTypeSchema = StringEnum(webhookEventTypes, { description: 'A webhook event type (docs/webhooks.md).' });

const WebhookEndpointSchema = Type.Object(
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

/** Body of `POST /webhook_endpoints/{id}/test`. */
export const WebhookTestBodySchema = Type.Object(
  { event_type: Type.Optional(EventTypeSchema) },
  { additionalProperties: false, description: 'event_type defaults to member.created.' },
);

export const WebhookTestResponseSchema = Type.Object({
  success: Type.Literal(true),
  data: Type.Object(
    {
      endpoint_id: Uuid(),
      webhook_id: Type.String({ description: 'The webhook-id header of the test send (not stored).' }),
      event_type: EventTypeSchema,
      delivered: Type.Boolean({ description: 'True when the receiver answered 2xx.' }),
      status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's status; null when there was no answer." }),
      duration_ms: Type.Integer({ minimum: 0 }),
      body: Type.String({ description: "The first KiB of the receiver's answer." }),
      error: Type.Union([Type.String(), Type.Null()], { description: 'Why there was no answer (connection, timeout, refused target).' }),
    },
    { title: 'WebhookTestResult' },
  ),
});

const WebhookAttemptSchema = Type.Object(
  {
    attempted_at: Timestamp(),
    status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's status; null when there was no answer." }),
    duration_ms: Type.Integer({ minimum: 0 }),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'WebhookAttempt' },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Uuid(),
    endpoint_id: Uuid(),
    webhook_id: Type.String(),
    type: Type.String(),
    status: StringEnum(['pending', 'delivered', 'failed'] as const),
    attempts: Type.Integer({ minimum: 0, description: 'Attempts since the delivery was (re)scheduled.' }),
    next_attempt_at: Type.Union([Timestamp(), Type.Null()]),
    last_response_status: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp(),
    delivered_at: Type.Union([Timestamp(), Type.Null()]),
    attempt_log: Type.Array(WebhookAttemptSchema, { description: 'Every attempt, oldest first, redeliveries included.' }),
  },
  { title: 'WebhookDelivery' },
);

export const ListWebhookDeliveriesQuerySchema = Type.Object({
  status: Type.Optional(StringEnum(['pending', 'delivered', 'failed'] as const)),
  page: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: '0-based page number.' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Deliveries per page, 1 to 100.' }),
});

export const WebhookDeliveryIdParamsSchema = Type.Object({ id: Uuid({ description: 'The webhook delivery id.' }) });

// ---- Console extensions (issue 39): endpoint changes, the event catalogue, redeliver failed ----

/** Body of `PATCH /webhook_endpoints/{id}`: every field optional, at least one. */
export const UpdateWebhookEndpointBodySchema = Type.Object(
  {
    url: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: 'A new receiver URL, checked by the same rules as at creation.' }),
    ),
    events: Type.Optional(
      Type.Union([Type.Array(EventTypeSchema, { minItems: 1, maxItems: webhookEventTypes.length, uniqueItems: true }), Type.Null()], {
        description: 'The event types to send; null is every type, including types added later.',
      }),
    ),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'false disables the endpoint (it receives nothing; its pending deliveries are failed unsent); true enables it again, whoever disabled it.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookEndpointResponseSchema = Type.Object({ success: Type.Literal(true), data: WebhookEndpointSchema });

export const WebhookEventTypesResponseSchema = Type.Object({
  success: Type.Literal(true),
  data: Type.Array(
    Type.Object(
      { type: EventTypeSchema, description: Type.String({ description: 'One line saying when it is sent.' }) },
      { title: 'WebhookEventTypeInfo' },
    ),
  ),
});

/** Body of `POST /webhook_endpoints/{id}/redeliver_failed`. */
export const RedeliverFailedBodySchema = Type.Object(
  { since: Timestamp({ description: 'Failed deliveries created at or after this instant are queued again.' }) },
  { additionalProperties: false },
);

export const RedeliverFailedResponseSchema = Type.Object({
  success: Type.Literal(true),
  data: Type.Object(
    {
      endpoint_id: Uuid(),
      since: Timestamp(),
      queued: Type.Integer({ minimum: 0, description: 'Failed deliveries made pending again by this call, oldest first (at most 1000).' }),
      remaining: Type.Integer({ minimum: 0, description: 'Failed deliveries since `since` left failed: call again to queue them.' }),
    },
    { title: 'RedeliverFailedResult' },
  ),
});
