import { Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../../schemas/common.schemas.js';
import { permissions } from '../../shared/permissions.js';
import { plans } from '../../shared/plans.js';

/** The calling key as `GET /api_key/me` shows it: never its secret. */
export const ApiKeyMeSchema = Type.Object(
  {
    id: Uuid({ description: 'The key id (what `community-admin key revoke|rotate` take).' }),
    label: Type.String(),
    community: Type.Object({ id: Uuid(), name: Type.String(), plan: StringEnum(plans) }),
    permissions: Type.Array(StringEnum(permissions), {
      description: 'What the key may do. A key created without --permissions holds every permission, including ones added later.',
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
