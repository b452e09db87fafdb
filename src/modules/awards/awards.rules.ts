import { type Failure, refuse } from '../../shared/failures.js';
import { isUuid } from '../../shared/ids.js';
import type { AwardRow } from './awards.queries.js';
import { awardEmojiPattern } from './awards.schemas.js';

/** The fields of a new award, as the CLI's options give them. */
export interface NewAward {
  name: string;
  description?: string | undefined;
  emoji?: string | undefined;
}

/** A new award's fields, trimmed and checked (absent or blank description and emoji: null). */
export type CheckedAward = Pick<AwardRow, 'name' | 'description' | 'emoji'>;

const emojiShape = new RegExp(awardEmojiPattern);

/** Checks a new award's fields: the award, or the first failure (name, then description, then emoji). */
export function parseNewAward(input: NewAward): { award: CheckedAward } | { failures: Failure[] } {
  const name = input.name.trim();
  if (name === '' || name.length > 100) return { failures: [{ path: ['name'], rule: 'length', message: 'must be 1 to 100 characters' }] };
  const description = input.description?.trim() || null;
  if (description !== null && description.length > 500)
    return { failures: [{ path: ['description'], rule: 'too_long', message: 'must be at most 500 characters' }] };
  const emoji = input.emoji?.trim() || null;
  if (emoji !== null && !emojiShape.test(emoji))
    return {
      failures: [
        {
          path: ['emoji'],
          rule: 'format',
          message: 'must be a shortcode such as :trophy: (lower-case letters, digits, _ + - between colons)',
        },
      ],
    };
  return { award: { name, description, emoji } };
}

/** The text of the direct message telling a recipient (the sender unnamed when anonymous or absent). */
export function awardMessageText(award: Pick<AwardRow, 'name' | 'description' | 'emoji'>, senderName: string | null): string {
  const from = senderName === null ? '' : ` from ${senderName}`;
  const description = award.description ? `\n>${award.description}` : '';
  return `${award.emoji ?? ':trophy:'} You received the award *${award.name}*${from}!${description}`;
}

/** An award id from a path, lower-cased; refused at `award_id` when it is none. */
export function awardIdFromPath(value: string): string {
  if (!isUuid(value)) throw refuse(['award_id'], 'format', 'must be a UUID');
  return value.toLowerCase();
}
