import { normaliseEmail } from '../../shared/ids.js';
import type { MemberDeps } from './members.commands.js';
import { selectMemberStateByEmail } from './members.queries.js';

/** The membership flags of an email; all false when no member holds it. */
export async function checkMembership(
  deps: Pick<MemberDeps, 'database'>,
  communityId: string,
  email: string,
): Promise<{ is_member: boolean; is_deactivated: boolean; is_forgotten: boolean }> {
  const state = await selectMemberStateByEmail(deps.database.db, communityId, normaliseEmail(email));
  return { is_member: state !== undefined, is_deactivated: state === 'deactivated', is_forgotten: state === 'forgotten' };
}
