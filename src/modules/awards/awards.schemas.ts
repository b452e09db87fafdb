import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../../schemas/common.schemas.js';
import { GroupUserSchema } from '../groups/groups.schemas.js';

/** Path of `POST /awards/{award_id}/assign`. */
export const AwardIdParamsSchema = Type.Object({ award_id: Uuid({ description: 'The award id (community-admin award list).' }) });

/** Body of `POST /awards/{award_id}/assign`. */
export const AssignAwardBodySchema = Type.Object(
  {
    recipient: GroupUserSchema,
    sender: Type.Optional(GroupUserSchema),
    send_anonymously: Type.Optional(Type.Boolean({ description: 'The direct message does not name the sender. Default false.' })),
  },
  { additionalProperties: false },
);
export type AssignAwardBody = Static<typeof AssignAwardBodySchema>;

export const AssignAwardResponseSchema = Type.Object({ success: Type.Literal(true) });

/** The fields an award is defined with (CLI and import). */
const awardNameRule = { minLength: 1, maxLength: 100 } as const;
const awardDescriptionRule = { maxLength: 500 } as const;
/** An emoji shortcode as Slack writes it (`:trophy:`, `:+1:`, `:flag-fr:`). */
export const awardEmojiPattern = "^:[a-z0-9_+'-]{1,64}:$";

/** An assignment inside an `awards` record of the import file. */
const AwardAssignmentImportSchema = Type.Object(
  {
    profile_id: Uuid(),
    sender_profile_id: Type.Optional(Type.Union([Uuid(), Type.Null()])),
    send_anonymously: Type.Optional(Type.Boolean()),
    assigned_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  },
  { additionalProperties: false },
);

/** An `awards` record of the import file: the award and who holds it. */
export const AwardImportSchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(awardNameRule),
    description: Type.Optional(Type.Union([Type.String(awardDescriptionRule), Type.Null()])),
    emoji: Type.Optional(Type.Union([Type.String({ pattern: awardEmojiPattern }), Type.Null()])),
    created_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
    updated_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
    assignments: Type.Optional(Type.Array(AwardAssignmentImportSchema, { maxItems: 1_000_000 })),
  },
  { additionalProperties: false },
);
export type AwardImport = Static<typeof AwardImportSchema>;

/** An award as the CLI lists it. */
export interface AwardView {
  id: string;
  name: string;
  description: string | null;
  emoji: string | null;
  assigned_count: number;
  created_at: string;
}

// --- console-api (issue 39): the awards list and create over the API ---

/** An award as `GET /awards` lists it and `POST /awards` answers it (the fields of `award list --json`). */
export const AwardRecordSchema = Type.Object(
  {
    id: Uuid({ description: 'The award id (what `POST /awards/{award_id}/assign` takes).' }),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    emoji: Type.Union([Type.String(), Type.Null()], { description: 'A Slack shortcode such as `:trophy:`.' }),
    assigned_count: Type.Integer({ minimum: 0, description: 'How many members hold the award.' }),
    created_at: Timestamp(),
  },
  { title: 'Award' },
);

/** Body of `POST /awards`: the fields of `award create`. */
export const CreateAwardBodySchema = Type.Object(
  {
    name: Type.String({ ...awardNameRule, description: 'Unique in the community; trimmed.' }),
    description: Type.Optional(Type.Union([Type.String(awardDescriptionRule), Type.Null()], { description: 'Blank or null: none.' })),
    emoji: Type.Optional(
      Type.Union([Type.String({ maxLength: 66 }), Type.Null()], { description: 'A shortcode such as `:trophy:`; blank or null: none.' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateAwardBody = Static<typeof CreateAwardBodySchema>;
