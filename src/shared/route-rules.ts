import type { Permission } from './permissions.js';
import type { Plan } from './plans.js';

/** What a route asks of its caller: the community's minimum plan and the key's permission (null: any valid key). */
export interface RouteRule {
  plan: Plan;
  permission: Permission | null;
  /** True for a documented route that takes no key at all (its `config.public`): the console's sign-in. */
  public?: boolean;
}

/** The rule of routes by `METHOD url` (as registered); HEAD follows GET; a route not listed needs only a valid key. */
export type RouteRuleTable = Readonly<Record<string, RouteRule>>;
