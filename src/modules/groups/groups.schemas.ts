import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../../schemas/common.schemas.js';

export const GroupIdParamsSchema = Type.Object({ group_id: Type.String({ minLength: 1, maxLength: 128 }) });

/** The three ways to name a user; exactly one is given (checked by the service, with a clear message). */
export const GroupUserSchema = Type.Object(
  {
    chat_user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "The user's chat user id (U…)." })),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'Matched case-insensitively, after trimming.' })),
    profile_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "The user's profile id (UUID)." })),
  },
  { additionalProperties: false, description: 'Exactly one of chat_user_id, email, profile_id.' },
);
export type GroupUser = Static<typeof GroupUserSchema>;

export const AddGroupMemberBodySchema = Type.Object({ user: GroupUserSchema }, { additionalProperties: false });

export const AddGroupMemberResponseSchema = Type.Object({
  success: Type.Literal(true),
  message: Type.Optional(Type.String({ description: 'Present when the user already was a member.' })),
});

/** A group record of the import file. */
export const GroupImportSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    member_profile_ids: Type.Optional(Type.Array(Uuid(), { uniqueItems: true, maxItems: 100000 })),
    created_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
    updated_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  },
  { additionalProperties: false },
);
export type GroupImport = Static<typeof GroupImportSchema>;

/** A group as `GET /groups` lists it. */
export const GroupRecordSchema = Type.Object(
  {
    id: Type.String({ description: 'The group id (what `POST /groups/{group_id}/members` takes).' }),
    name: Type.String(),
    member_count: Type.Integer({ minimum: 0, description: 'How many profiles the group holds.' }),
    created_at: Timestamp(),
  },
  { title: 'GroupRecord' },
);
export type GroupRecord = Static<typeof GroupRecordSchema>;
