import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../../schemas/common.schemas.js';

/** Member states; `forgotten` has no API transition into it (import only). */
const memberStates = ['active', 'deactivated', 'forgotten'] as const;
export type MemberState = (typeof memberStates)[number];

// Avatars are shown by clients as images: only web URLs, never javascript:, data: and the like.
const AvatarUrl = Type.String({ format: 'uri', pattern: '^[hH][tT][tT][pP][sS]?://', maxLength: 2048 });

/** A member as every member operation returns it. */
const MemberSchema = Type.Object({
  id: Uuid(),
  email: Type.String({ format: 'email' }),
  full_name: Type.String(),
  preferred_name: Type.String({ description: 'The first name: full_name up to its first space.' }),
  avatar_url_original: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  chat_profile_id: Type.Union([Uuid({ description: 'The linked profile with a chat identity.' }), Type.Null()]),
});
export type Member = Static<typeof MemberSchema>;

/** The outcome of the chat invitation of a member add. */
const ChatInviteSchema = Type.Object({
  status: StringEnum(['invited', 'already_in_workspace', 'failed'] as const),
  code: Type.String({ description: "`ok` when sent; otherwise the chat platform's code or one of ours (see docs/chat.md)." }),
  channel_ids: Type.Array(Type.String()),
  detail: Type.String(),
});

export const AddMemberBodySchema = Type.Object(
  {
    email: Type.String({ format: 'email', minLength: 1, maxLength: 254, description: 'Matched case-insensitively, after trimming.' }),
    full_name: Type.String({ minLength: 1, maxLength: 100, description: 'First and last name separated by a space.' }),
    avatar_url_original: Type.Optional(Type.Union([AvatarUrl, Type.Null()], { description: 'http(s) URL; null or "" clears it.' })),
    invite_to_chat: Type.Optional(Type.Boolean({ default: false })),
    chat_channel_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
        minItems: 1,
        maxItems: 10,
        description: 'Only with invite_to_chat: true.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AddMemberBody = Static<typeof AddMemberBodySchema>;

/** The body of both successes of a member add (201 created, 200 updated), told apart by `description`. */
export const addMemberResponse = (description: string) =>
  Type.Object(
    {
      success: Type.Literal(true),
      message: Type.String(),
      data: Type.Object({
        member: MemberSchema,
        chat_invite: Type.Optional(Type.Object(ChatInviteSchema.properties, { description: 'Present when invite_to_chat was true.' })),
      }),
    },
    { description },
  );

export const CheckMemberBodySchema = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254, description: 'Matched case-insensitively, after trimming.' }) },
  { additionalProperties: false },
);

export const CheckMemberResponseSchema = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ is_member: Type.Boolean(), is_deactivated: Type.Boolean(), is_forgotten: Type.Boolean() }),
});

export const MemberIdParamsSchema = Type.Object({ member_id: Type.String({ minLength: 1, maxLength: 200 }) });

export const DeactivateMemberResponseSchema = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  data: Type.Object({ member: MemberSchema, already_deactivated: Type.Boolean() }),
});

/** A member record of the import file: the API's member fields plus its state. */
export const MemberImportSchema = Type.Object(
  {
    id: Uuid(),
    email: Type.String({ format: 'email', minLength: 1, maxLength: 254 }),
    full_name: Type.String({ minLength: 1, maxLength: 100 }),
    preferred_name: Type.Optional(Type.String({ maxLength: 200 })),
    avatar_url_original: Type.Optional(
      Type.Union([Type.String({ format: 'uri', pattern: '^[hH][tT][tT][pP][sS]?://', maxLength: 2048 }), Type.Literal(''), Type.Null()]),
    ),
    chat_profile_id: Type.Optional(Type.Union([Uuid(), Type.Null()])),
    state: Type.Optional(StringEnum(memberStates)),
    created_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
    updated_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  },
  { additionalProperties: false },
);
export type MemberImport = Static<typeof MemberImportSchema>;

/** The member list's orders (`-` for descending); ties are broken by id in the same direction. */
const memberListSorts = ['name', '-name', 'joined_at', '-joined_at'] as const;

/** Query of `GET /members` (the console's member list; docs/members.md, "The member list"). */
export const ListMembersQuerySchema = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'Finds members whose full name, preferred name or email contains this text, case and accents ignored (`ada`, `LOVELACE`, `zoe` for Zoë, `@example.org`). At most 200 characters; empty: no filter.',
      }),
    ),
    status: Type.Optional(
      StringEnum(['active', 'deactivated'] as const, { description: 'Only active or only deactivated members (default: both).' }),
    ),
    sort: Type.Optional(
      StringEnum(memberListSorts, {
        default: 'name',
        description:
          '`name`: by full name (case and accents ignored); `joined_at`: by when the member was created; `-` reverses. Ties by id.',
      }),
    ),
    page: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: '0-based page number.' }),
    per_page: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Members per page, 1 to 50.' }),
  },
  { additionalProperties: false },
);
export type ListMembersQuery = Static<typeof ListMembersQuerySchema>;

/** A member of the list: the member object of `POST /members`, its state and when it joined. */
export const MemberListRecordSchema = Type.Object(
  {
    ...MemberSchema.properties,
    is_deactivated: Type.Boolean({ description: 'True for a deactivated member (POST /members/{member_id}/deactivate).' }),
    joined_at: Timestamp({ description: 'When the member was created (added, imported or synced).' }),
  },
  { title: 'MemberListRecord' },
);
export type MemberListRecord = Static<typeof MemberListRecordSchema>;
