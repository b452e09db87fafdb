import { Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../../schemas/common.schemas.js';
import { plans } from '../../shared/plans.js';

export const ConsoleSignInBodySchema = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The token of a console link (`community-admin console link`): what follows `#token=` in its URL.',
    }),
  },
  { additionalProperties: false },
);

const ConsoleSessionSchema = Type.Object(
  {
    key: Type.String({
      description: "The session's API key secret: shown once. Send it as `Authorization: Bearer <key>`; revoke it to sign out.",
    }),
    key_id: Uuid({ description: "The session key's id (what `DELETE /admin/v0/api_keys/{id}` takes to sign out)." }),
    expires_at: Timestamp({ description: 'When the session ends (CONSOLE_SESSION_HOURS after the sign-in).' }),
    community: Type.Object({ id: Uuid(), name: Type.String(), plan: StringEnum(plans) }),
  },
  { title: 'ConsoleSession' },
);

export const ConsoleSignInResponseSchema = Type.Object({ success: Type.Literal(true), data: ConsoleSessionSchema });
