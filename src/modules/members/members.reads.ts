import type { CountCache } from '../../caching/count-cache.js';
import { type PageMeta, pageOf } from '../../schemas/json-text.js';
import { storedNow } from '../../shared/clock.js';
import { normaliseEmail } from '../../shared/ids.js';
import { endOfTime } from '../../shared/time.js';
import type { MemberDeps } from './members.commands.js';
import { countMembers, type MemberListFilter, selectMemberStateByEmail, selectMembersPage } from './members.queries.js';
import { memberListRecordJson } from './members.records.js';
import { memberQueryText } from './members.rules.js';
import type { ListMembersQuery } from './members.schemas.js';

/** The membership flags of an email; all false when no member holds it. */
export async function checkMembership(
  deps: Pick<MemberDeps, 'database'>,
  communityId: string,
  email: string,
): Promise<{ is_member: boolean; is_deactivated: boolean; is_forgotten: boolean }> {
  const state = await selectMemberStateByEmail(deps.database.db, communityId, normaliseEmail(email));
  return { is_member: state !== undefined, is_deactivated: state === 'deactivated', is_forgotten: state === 'forgotten' };
}

/**
 * The member list's filter of a validated query: the state, and `q` as a LIKE pattern of its folded
 * text (empty: none) and, from 3 characters, as an FTS5 phrase of it (trigrams; `"` doubled inside).
 */
function listFilterOf(query: ListMembersQuery): MemberListFilter {
  const text = query.q === undefined ? '' : memberQueryText(query.q);
  return {
    state: query.status ?? null,
    pattern: text === '' ? null : `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    phrase: Array.from(text).length < 3 ? null : `"${text.replaceAll('"', '""')}"`,
  };
}

/**
 * The exact total of a filter: from the count cache when one is given, reused while the community's
 * members are unchanged (members_version, bumped by every change of them), else counted.
 */
async function memberTotal(deps: MemberListDeps, communityId: string, filter: MemberListFilter): Promise<number> {
  const count = () => countMembers(deps.database.db, communityId, filter);
  if (!deps.counts) return count();
  const key = `members ${filter.state ?? ''} ${filter.pattern ?? ''}`;
  return deps.counts.total(deps.database, communityId, 'members_version', key, storedNow(deps.clock), async () => ({
    count: await count(),
    validUntil: endOfTime,
  }));
}

/** What the member list is given: the database, and the count cache (with the clock) when totals may be reused. */
export type MemberListDeps = Pick<MemberDeps, 'database' | 'clock'> & { counts?: CountCache };

/** `GET /members`: a page of the community's members (never the forgotten ones), with the exact total; records as JSON text. */
export async function listMembers(
  deps: MemberListDeps,
  communityId: string,
  query: ListMembersQuery,
): Promise<PageMeta & { records: string[] }> {
  const filter = listFilterOf(query);
  const db = deps.database.db;
  const [total, rows] = await Promise.all([
    memberTotal(deps, communityId, filter),
    selectMembersPage(db, communityId, filter, query.sort ?? 'name', query.per_page, query.page * query.per_page),
  ]);
  return pageOf(query.page, query.per_page, total, rows.map(memberListRecordJson));
}
