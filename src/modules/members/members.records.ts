import { formatJsonTimestamp } from '../../shared/timestamps.js';
import type { MemberRow } from './members.queries.js';
import type { Member } from './members.schemas.js';

/**
 * A member of the list (`MemberListRecordSchema`) as JSON text: its fields in the schema's order, each
 * of the schema's type, every one present (null kept). Built here rather than by the route's
 * serializer: the schema's unions (`uri` or null, UUID or null) make fast-json-stringify validate each
 * value to choose a branch, which cost more than the rest of a page of 20 (docs/members.md).
 * test/modules/members/members-list.test.ts reads records back through the schema unchanged.
 */
export function memberListRecordJson(row: MemberRow): string {
  return JSON.stringify({
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    preferred_name: row.preferred_name,
    avatar_url_original: row.avatar_url_original,
    chat_profile_id: row.chat_profile_id,
    is_deactivated: row.state === 'deactivated',
    joined_at: formatJsonTimestamp(row.created_at),
  });
}

/** The API member of a stored row. */
export function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    preferred_name: row.preferred_name,
    avatar_url_original: row.avatar_url_original,
    chat_profile_id: row.chat_profile_id,
  };
}
