import { Type } from '@sinclair/typebox';
import { PagedListSchema, StringEnum, Timestamp } from '../../schemas/common.schemas.js';
import { activityActions, actorTypes } from '../../shared/activity.js';

/** The export's file formats (`GET /activities/export`, `activity export --format`). */
const activityExportFormats = ['jsonl', 'csv'] as const;
export type ActivityExportFormat = (typeof activityExportFormats)[number];

/** `calendar_event.*` and the like: every action of one resource. */
const actionFamilies = [...new Set(activityActions.map((action) => `${action.slice(0, action.indexOf('.'))}.*`))];

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ActivitySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    occurred_at: Type.String({ description: 'When the change was made, to the microsecond (`2025-03-11T13:06:35.552988+00:00`).' }),
    action: StringEnum(activityActions),
    actor: Type.Object({
      type: StringEnum(actorTypes),
      id: Nullable(Type.String({ description: 'The API key id (api_key, console); null for cli and system.' })),
      label: Nullable(Type.String({ description: "The key's label; for cli the operating-system user." })),
    }),
    target: Type.Object({
      type: Type.String({
        description: 'The kind of object changed: calendar_event, member, group, api_key, webhook_endpoint, community, ...',
      }),
      id: Nullable(Type.String()),
      name: Nullable(Type.String()),
    }),
    context: Type.Union([
      Type.Object({ request_id: Type.String(), ip: Nullable(Type.String()), user_agent: Nullable(Type.String()) }),
      Type.Null(),
    ]),
    changes: Type.Union([
      Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 2, maxItems: 2 }), {
        description: '`field: [before, after]` for *.updated and api_key.permissions_changed; never secrets.',
      }),
      Type.Null(),
    ]),
    metadata: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    hash: Type.String({
      description:
        "SHA-256 (hex) over the previous record's hash of the community (its 32 bytes) and this record's canonical JSON without `hash` (docs/activity.md).",
    }),
  },
  { additionalProperties: false },
);

export const ListActivitiesQuerySchema = Type.Object({
  action: Type.Optional(
    StringEnum([...activityActions, ...actionFamilies] as const, {
      description: 'One action, or every action of a resource (`calendar_event.*`).',
    }),
  ),
  actor_type: Type.Optional(StringEnum(actorTypes)),
  actor_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  target_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  since: Type.Optional(Timestamp({ description: 'Records at or after this instant.' })),
  until: Type.Optional(Timestamp({ description: 'Records before this instant.' })),
  page: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: '0-based page number.' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Records per page, 1 to 100.' }),
});

export const ActivityListResponseSchema = Type.Object({ success: Type.Literal(true), data: PagedListSchema(ActivitySchema) });

/** The list's filters without its paging, and the file's format. */
export const ExportActivitiesQuerySchema = Type.Composite([
  Type.Omit(ListActivitiesQuerySchema, ['page', 'per_page']),
  Type.Object({
    format: StringEnum(activityExportFormats, {
      description: 'jsonl: one record per line as GET /activities answers it; csv: one column per field (RFC 4180, CRLF lines).',
    }),
  }),
]);

/** The file itself: its records are not serialised by the route's schema but streamed as they are read. */
export const ActivityExportFileSchema = Type.String({
  description: 'Every record the filters match, oldest first (chain order), as `community-admin activity export` writes them.',
});
