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
  'activities:read',
] as const;
export type Permission = (typeof permissions)[number];

/**
 * What a key may do: `all` (a key created without --permissions: every permission, including
 * ones added in later versions) or the listed ones.
 */
export type KeyPermissions = 'all' | ReadonlySet<Permission>;

const isPermission = (value: string): value is Permission => (permissions as readonly string[]).includes(value);

/** The stored form: `all`, or the permissions comma-separated in catalogue order. */
export function storedPermissions(held: KeyPermissions): string {
  return held === 'all' ? 'all' : permissions.filter((p) => held.has(p)).join(',');
}

/** The permissions of a stored value; an unknown name (a permission removed since) is ignored. */
export function parseStoredPermissions(stored: string): KeyPermissions {
  if (stored === 'all') return 'all';
  return new Set(stored.split(',').filter(isPermission));
}

/** The permissions an operator typed (`a,b,...` or `all`); names the first unknown one. */
export function parsePermissionList(text: string): KeyPermissions {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new UserInputError(`--permissions needs at least one permission (or "all"): ${permissions.join(', ')}.`);
  if (names.length === 1 && names[0] === 'all') return 'all';
  const unknown = names.find((name) => !isPermission(name));
  if (unknown !== undefined)
    throw new UserInputError(`Unknown permission "${unknown}". Permissions: ${permissions.join(', ')} (or "all").`);
  return new Set(names as Permission[]);
}

/** The permissions as answered (CLI, /api_key/me): every one, in catalogue order, for `all`. */
export function permissionNames(held: KeyPermissions): Permission[] {
  return held === 'all' ? [...permissions] : permissions.filter((p) => held.has(p));
}

/** True when the key holds `needed`. */
export const holds = (held: KeyPermissions, needed: Permission): boolean => held === 'all' || held.has(needed);
