import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../../schemas/common.schemas.js';
import { permissions } from '../../shared/permissions.js';
import { plans } from '../../shared/plans.js';

/** The calling key as `GET /api_key/me` shows it: never its secret. */
const ApiKeyMeSchema = Type.Object(
  {
    id: Uuid({ description: 'The key id (what `community-admin key revoke|rotate` take).' }),
    label: Type.String(),
    community: Type.Object({ id: Uuid(), name: Type.String(), plan: StringEnum(plans) }),
    permissions: Type.Array(StringEnum(permissions), {
      description:
        'What the key may do. A key created without --permissions holds every permission, including ones added later, except api_keys:write, which a key holds only when it is named.',
    }),
    created_at: Timestamp(),
    expires_at: Type.Union([Timestamp(), Type.Null()], { description: 'null: the key never expires.' }),
    last_used_at: Type.Union([Timestamp(), Type.Null()], {
      description: 'Recorded at most once a minute per key, so it may lag the current request by up to a minute.',
    }),
  },
  { title: 'ApiKey' },
);

export const ApiKeyMeResponseSchema = Type.Object({ success: Type.Literal(true), data: ApiKeyMeSchema });

// --- Key management over the API (issue 39; docs/api-keys.md, "Managing keys over the API") ---

const permissionsText =
  'What the key may do: permission names, or `all` (every permission, including ones added later, except `api_keys:write`, which a key holds only when it is named: `["all", "api_keys:write"]`). A key can only be given permissions the calling key holds itself.';

const Duration = (description: string) => Type.String({ pattern: '^\\s*[0-9]{1,10}[smhd]\\s*$', maxLength: 16, description });

/** A key as the list shows it: never its secret. */
export const ApiKeyRecordSchema = Type.Object(
  {
    id: Uuid({ description: 'The key id (what rotate and delete take).' }),
    label: Type.String(),
    kind: StringEnum(['key', 'console'] as const, {
      description: '`console`: a console session (docs/console.md), made by signing in; `key`: every other key.',
    }),
    permissions: Type.Array(StringEnum(permissions), { description: 'Every permission the key holds now, in catalogue order.' }),
    all_permissions: Type.Boolean({
      description: 'True when the key holds `all`: permissions added in later versions too (api_keys:write only when named besides).',
    }),
    created_at: Timestamp(),
    expires_at: Type.Union([Timestamp(), Type.Null()], { description: 'null: the key never expires.' }),
    last_used_at: Type.Union([Timestamp(), Type.Null()], { description: 'Recorded at most once a minute per key.' }),
  },
  { title: 'ApiKeyRecord' },
);

export const ListApiKeysQuerySchema = Type.Object(
  {
    page: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: '0-based page number.' }),
    per_page: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Keys per page, 1 to 50.' }),
  },
  { additionalProperties: false },
);
export type ListApiKeysQuery = Static<typeof ListApiKeysQuerySchema>;

export const CreateApiKeyBodySchema = Type.Object(
  {
    label: Type.String({ maxLength: 200, description: 'What the key is for (may be empty).' }),
    permissions: Type.Array(StringEnum([...permissions, 'all'] as const), { minItems: 1, maxItems: 64, description: permissionsText }),
    expires_in: Type.Optional(
      Duration('Lifetime from now: `30s`, `15m`, `24h`, `90d` (at most 100 years), as `key create --expires-in`. Absent: never expires.'),
    ),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBodySchema>;

/** The created key: its secret here and never again. */
export const CreatedApiKeySchema = Type.Object(
  {
    id: Uuid(),
    key: Type.String({ description: 'The secret (`Authorization: Bearer <key>`): shown in this answer only, never stored in clear.' }),
    label: Type.String(),
    permissions: Type.Array(StringEnum(permissions)),
    all_permissions: Type.Boolean(),
    expires_at: Type.Union([Timestamp(), Type.Null()]),
  },
  { title: 'CreatedApiKey' },
);

export const ApiKeyIdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'The key id.' }) });

export const RotateApiKeyQuerySchema = Type.Object(
  {
    grace: Type.Optional(
      Type.String({
        pattern: '^\\s*(0|0[smhd]|[0-9]{1,10}[smhd])\\s*$',
        maxLength: 16,
        description: 'How long the replaced secret keeps working: `0`, `30s`, `15m`, `24h`, `90d`, as `key rotate --grace`. Default `24h`.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RotateApiKeyQuery = Static<typeof RotateApiKeyQuerySchema>;

export const RotatedApiKeySchema = Type.Object(
  {
    id: Uuid(),
    key: Type.String({ description: 'The new secret: shown in this answer only.' }),
    previous_valid_until: Timestamp({ description: 'Until when the replaced secret keeps working.' }),
  },
  { title: 'RotatedApiKey' },
);

export const RevokedApiKeySchema = Type.Object({ id: Uuid(), revoked_at: Timestamp() }, { title: 'RevokedApiKey' });
