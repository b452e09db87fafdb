import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../../schemas/common.schemas.js';
import { epochMicros } from '../../shared/time.js';
import { formatJsonTimestamp, parseTimestamp } from '../../shared/timestamps.js';

const imageFields = [
  'preferred_image_original',
  'preferred_image_1024',
  'preferred_image_512',
  'preferred_image_192',
  'preferred_image_72',
  'preferred_image_48',
  'preferred_image_32',
  'preferred_image_24',
] as const;

const ImageUrl = Type.String({ description: 'Image URL.' });

/** A profile as the API shows it (hosts, speakers, post authors). */
export const ProfileSchema = Type.Object(
  {
    profile_id: Uuid(),
    created_at: Timestamp(),
    preferred_name: Type.String(),
    ...Object.fromEntries(imageFields.map((field) => [field, ImageUrl])),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.Union([Type.String({ format: 'email' }), Type.Null()], {
      description: 'null for a profile without an e-mail (bots, guests, people imported from the chat platform).',
    }),
    chat_user_id: Type.String(),
    chat_is_admin: Type.Boolean(),
    chat_is_bot: Type.Boolean(),
    chat_first_name: Type.String(),
    chat_last_name: Type.String(),
    chat_image_72: Type.String(),
    chat_image_original: Type.String(),
  } as const,
  { $id: 'Profile', title: 'Profile' },
);

export interface Profile {
  profile_id: string;
  created_at: string;
  preferred_name: string;
  preferred_image_original: string;
  preferred_image_1024: string;
  preferred_image_512: string;
  preferred_image_192: string;
  preferred_image_72: string;
  preferred_image_48: string;
  preferred_image_32: string;
  preferred_image_24: string;
  first_name: string;
  last_name: string;
  email: string | null;
  chat_user_id: string;
  chat_is_admin: boolean;
  chat_is_bot: boolean;
  chat_first_name: string;
  chat_last_name: string;
  chat_image_72: string;
  chat_image_original: string;
}

const OptionalString = (options: { maxLength?: number; format?: string } = {}) =>
  Type.Optional(Type.String({ maxLength: 2048, ...options }));

/**
 * A profile record of the import file: the API fields, all but profile_id optional. Bots, guests
 * and people the chat platform knows only by name have no e-mail: absent, null and "" all mean none.
 */
export const ProfileImportSchema = Type.Object(
  {
    profile_id: Uuid(),
    email: Type.Optional(Type.Union([Type.String({ format: 'email', minLength: 1, maxLength: 254 }), Type.Literal(''), Type.Null()])),
    created_at: Type.Optional(Timestamp()),
    preferred_name: OptionalString({ maxLength: 200 }),
    ...Object.fromEntries(imageFields.map((field) => [field, OptionalString()])),
    first_name: OptionalString({ maxLength: 200 }),
    last_name: OptionalString({ maxLength: 200 }),
    chat_user_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
    chat_is_admin: Type.Optional(Type.Boolean()),
    chat_is_bot: Type.Optional(Type.Boolean()),
    chat_first_name: OptionalString({ maxLength: 200 }),
    chat_last_name: OptionalString({ maxLength: 200 }),
    chat_image_72: OptionalString(),
    chat_image_original: OptionalString(),
  } as const,
  { additionalProperties: false },
);

export type ProfileImport = Static<typeof ProfileImportSchema> & Partial<Record<(typeof imageFields)[number], string>>;

/** The API profile of an import record, with defaults for what the file leaves out. */
export function profileFromImport(record: ProfileImport, nowIso: string): Profile {
  const images = Object.fromEntries(imageFields.map((field) => [field, record[field] ?? ''])) as Record<
    (typeof imageFields)[number],
    string
  >;
  const first = record.first_name ?? '';
  const last = record.last_name ?? '';
  return {
    profile_id: record.profile_id.toLowerCase(),
    created_at: record.created_at ? formatJsonTimestamp(parseTimestamp(record.created_at) ?? epochMicros(0)) : nowIso,
    preferred_name: record.preferred_name ?? [first, last].filter(Boolean).join(' '),
    ...images,
    first_name: first,
    last_name: last,
    email: record.email?.trim() || null,
    chat_user_id: record.chat_user_id ?? '',
    chat_is_admin: record.chat_is_admin ?? false,
    chat_is_bot: record.chat_is_bot ?? false,
    chat_first_name: record.chat_first_name ?? '',
    chat_last_name: record.chat_last_name ?? '',
    chat_image_72: record.chat_image_72 ?? '',
    chat_image_original: record.chat_image_original ?? '',
  };
}
