import { UserInputError } from '../errors.js';

/** Every permission a key can hold: one per resource and access. */
export const permissions = [
  'calendar_events:read',
  'calendar_events:write',
  'members:read',
  'members:write',
  'groups:write',
  'feeds:read',
  'webhooks:write',
  'files:write',
  'awards:write',
  // --- console-api (issue 39): the reads of the console's lists, and key management (never implied). ---
  'groups:read',
  'awards:read',
  'files:read',
  'api_keys:write',
  // --- end console-api ---
  // ---- console-ops-api (issue 39): the Slack page (GET /chat/status, sync jobs) ----
  'chat:read',
  'chat:write',
  // ---- end console-ops-api ----
  'activities:read',
] as const;
export type Permission = (typeof permissions)[number];

/**
 * Permissions that `all` never implies: a key holds one only when it is named (`--permissions
 * all,api_keys:write` or a list naming it). Managing keys is the power to mint any other key, so a
 * key made without --permissions, and every key of the versions before it existed, lacks it.
 */
const neverImplied = ['api_keys:write'] as const satisfies readonly Permission[];
export type NeverImpliedPermission = (typeof neverImplied)[number];

/** `all` and, named besides it, permissions that `all` never implies. */
export interface AllAnd {
  readonly all: true;
  readonly named: ReadonlySet<NeverImpliedPermission>;
}

/**
 * What a key may do: `all` (a key created without --permissions: every permission, including ones
 * added in later versions, but those of `neverImplied`), `all` with some of `neverImplied` named
 * besides (AllAnd), or the listed ones.
 */
export type KeyPermissions = 'all' | AllAnd | ReadonlySet<Permission>;

/** Every permission there is and will be, key management included (what a console session holds). */
export const everyPermission: KeyPermissions = { all: true, named: new Set(neverImplied) };

const isPermission = (value: string): value is Permission => (permissions as readonly string[]).includes(value);
const isNeverImplied = (value: string): value is NeverImpliedPermission => (neverImplied as readonly string[]).includes(value);
const isAllAnd = (held: KeyPermissions): held is AllAnd => typeof held === 'object' && 'all' in held;

/** True when the key holds `all`: every permission, including future ones (but those never implied, unless named). */
export const holdsAll = (held: KeyPermissions): boolean => held === 'all' || isAllAnd(held);

/** True when the key holds `needed`. */
export function holds(held: KeyPermissions, needed: Permission): boolean {
  if (held === 'all') return !isNeverImplied(needed);
  if (isAllAnd(held)) return isNeverImplied(needed) ? held.named.has(needed) : true;
  return held.has(needed);
}

/** The stored form: `all` (then the never-implied permissions named besides it), or the permissions comma-separated in catalogue order. */
export function storedPermissions(held: KeyPermissions): string {
  if (held === 'all') return 'all';
  if (isAllAnd(held)) return ['all', ...neverImplied.filter((p) => held.named.has(p))].join(',');
  return permissions.filter((p) => held.has(p)).join(',');
}

/** The permissions of names (`all` among them or not); unknown names must have been refused before. */
function fromNames(names: readonly string[]): KeyPermissions {
  if (!names.includes('all')) return new Set(names.filter(isPermission));
  const named = new Set(names.filter(isNeverImplied));
  return named.size === 0 ? 'all' : { all: true, named };
}

/** The permissions of a stored value; an unknown name (a permission removed since) is ignored. */
export function parseStoredPermissions(stored: string): KeyPermissions {
  if (stored === 'all') return 'all';
  return fromNames(stored.split(','));
}

/**
 * The permissions of names an operator or a client gave (`all` may be among them: with it, only the
 * never-implied names add anything); the first unknown name when there is one.
 */
export function parsePermissionNames(names: readonly string[]): KeyPermissions | { unknown: string } {
  const unknown = names.find((name) => name !== 'all' && !isPermission(name));
  if (unknown !== undefined) return { unknown };
  return fromNames(names);
}

/** The permissions an operator typed (`a,b,...`, `all`, or `all,api_keys:write`); names the first unknown one. */
export function parsePermissionList(text: string): KeyPermissions {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new UserInputError(`--permissions needs at least one permission (or "all"): ${permissions.join(', ')}.`);
  const parsed = parsePermissionNames(names);
  if (typeof parsed === 'object' && 'unknown' in parsed)
    throw new UserInputError(`Unknown permission "${parsed.unknown}". Permissions: ${permissions.join(', ')} (or "all").`);
  return parsed;
}

/** The permissions as answered (CLI, /api_key/me): every one held, in catalogue order. */
export function permissionNames(held: KeyPermissions): Permission[] {
  return permissions.filter((p) => holds(held, p));
}

/**
 * What `target` holds that `holder` does not: a permission, `all` (the target would gain future
 * permissions that the holder, holding a list, would not), or null when the holder holds all of it.
 */
export function firstNotHeld(holder: KeyPermissions, target: KeyPermissions): Permission | 'all' | null {
  if (holdsAll(target) && !holdsAll(holder)) return 'all';
  return permissionNames(target).find((p) => !holds(holder, p)) ?? null;
}
