import { foldText } from '../../shared/search-text.js';

/** Splits a full name at its first space: the first part is the first name (a single word is one). */
export function splitFullName(fullName: string): { firstName: string; lastName: string } {
  const trimmed = fullName.trim();
  const space = trimmed.search(/\s/);
  if (space < 0) return { firstName: trimmed, lastName: '' };
  return { firstName: trimmed.slice(0, space), lastName: trimmed.slice(space + 1).trim() };
}

/**
 * The list's sort key and search text of a member (migration 019 wrote the rows before it with the
 * same rule): the full name folded (case, accents: foldText), and full name, preferred name and
 * email folded, one a line, so that `q` never matches across two of them.
 */
export function memberListColumns(fullName: string, preferredName: string, emailNorm: string): { name_sort: string; search_text: string } {
  const nameSort = foldText(fullName.trim());
  return { name_sort: nameSort, search_text: `${nameSort}\n${foldText(preferredName)}\n${foldText(emailNorm)}` };
}

/** What a list's `q` is looked for as: folded and trimmed, each run of spaces one space (`ada love` finds "Ada Lovelace"). */
export const memberQueryText = (q: string): string => foldText(q.trim()).replace(/\s+/gu, ' ');
