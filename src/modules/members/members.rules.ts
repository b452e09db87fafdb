import { foldText } from '../../shared/search-text.js';

/** Splits a full name at its first space: the first part is the first name (a single word is one). */
export function splitFullName(fullName: string): { firstName: string; lastName: string } {
  const trimmed = fullName.trim();
  const space = trimmed.search(/\s/);
  if (space < 0) return { firstName: trimmed, lastName: '' };
  return { firstName: trimmed.slice(0, space), lastName: trimmed.slice(space + 1).trim() };
}

/** What a list's `q` is looked for as: folded and trimmed, each run of spaces one space (`ada love` finds "Ada Lovelace"). */
export const memberQueryText = (q: string): string => foldText(q.trim()).replace(/\s+/gu, ' ');
