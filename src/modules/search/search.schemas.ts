import { type Static, Type } from '@sinclair/typebox';
import { Uuid } from '../../schemas/common.schemas.js';

/** Longest query, in characters after trimming (the schema allows surrounding space beyond it). */
export const maxQueryLength = 200;

/** Query of `GET /search`. */
export const SearchQuerySchema = Type.Object({
  q: Type.String({
    maxLength: 1000,
    description:
      'What to find, 1 to 200 characters after trimming. Words are ANDed; "a phrase" matches consecutive words; ' +
      '-word excludes; word* is a prefix (two characters at least). Case and accents do not matter; any other character is plain text.',
  }),
  page: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: '0-based page number.' }),
  per_page: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Posts per page, 1 to 50.' }),
  feed_id: Type.Optional(Uuid({ description: "Only this feed's posts." })),
  author_profile_id: Type.Optional(Uuid({ description: "Only this author's posts." })),
});
export type SearchQuery = Static<typeof SearchQuerySchema>;
