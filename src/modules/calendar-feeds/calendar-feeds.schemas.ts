import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../../schemas/common.schemas.js';

/** The longest label of a calendar feed (the schema's limit, and the command's for the CLI). */
export const maxLabelLength = 200;

/** A calendar feed (docs/calendar-feeds.md). */
const CalendarFeedSchema = Type.Object(
  {
    id: Uuid(),
    label: Type.String(),
    member_id: Type.Union([Type.String(), Type.Null()], { description: "A member's own feed: the member; null for a shared feed." }),
    tag_id: Type.Union([Type.String(), Type.Null()], { description: 'Only events carrying this tag; null for all.' }),
    include_unlisted: Type.Boolean({ description: 'Whether unlisted events are shown.' }),
    created_at: Timestamp(),
    revoked_at: Type.Union([Timestamp(), Type.Null()]),
    url: Type.Union([Type.String(), Type.Null()], {
      description:
        "The feed's address (`GET /calendar/{token}.ics`, no key). Only in the answer that creates a shared feed, and in every answer of a member's feed POST; null in lists.",
    }),
    webcal_url: Type.Union([Type.String(), Type.Null()], {
      description: 'The same address as `webcal://`, which calendar apps open as a subscription.',
    }),
  },
  { title: 'CalendarFeed' },
);

export const ListCalendarFeedsResponseSchema = Type.Object({ success: Type.Literal(true), data: Type.Array(CalendarFeedSchema) });
export const CalendarFeedResponseSchema = Type.Object({ success: Type.Literal(true), data: CalendarFeedSchema });
export const RevokedCalendarFeedResponseSchema = Type.Object({ success: Type.Literal(true) });

export const CreateCalendarFeedBodySchema = Type.Object(
  {
    label: Type.Optional(
      Type.String({ maxLength: maxLabelLength, description: "Shown after the community's name as the calendar's name." }),
    ),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Only events carrying this tag (its id or its label).' })),
    include_unlisted: Type.Optional(Type.Boolean({ description: 'Show unlisted events too (default false).' })),
  },
  { additionalProperties: false },
);
export type CreateCalendarFeedBody = Static<typeof CreateCalendarFeedBodySchema>;

export const CalendarFeedIdParamsSchema = Type.Object({ id: Uuid({ description: 'The feed id.' }) });
export const MemberFeedParamsSchema = Type.Object({ member_id: Type.String({ minLength: 1, maxLength: 200 }) });
export const FeedTokenParamsSchema = Type.Object({ token: Type.String({ maxLength: 256 }) });
