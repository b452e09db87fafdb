import type { RouteOptions } from 'fastify';
import { ApiError } from '../errors.js';
import { holds, type Permission, permissionNames } from '../shared/permissions.js';
import { type Plan, planAtLeast } from '../shared/plans.js';
import type { RouteRule, RouteRuleTable } from '../shared/route-rules.js';
import type { GuardStep } from './request-guard.js';

const planNames: Record<Plan, string> = { free: 'Free', growth: 'Growth', momentum: 'Momentum', enterprise: 'Enterprise' };

/** The rule of one method and URL by the table, or undefined when the route is not in it. */
export const ruleOf = (table: RouteRuleTable, method: string, url: string): RouteRule | undefined =>
  table[`${method === 'HEAD' ? 'GET' : method} ${url}`];

/** The rule of a route as registered (one method, or several: the first listed one), or undefined. */
export function routeRuleOf(table: RouteRuleTable): (route: Pick<RouteOptions, 'method' | 'url'>) => RouteRule | undefined {
  return (route) => {
    for (const method of [route.method].flat()) {
      const rule = ruleOf(table, method, route.url);
      if (rule) return rule;
    }
    return undefined;
  };
}

/** Answers 403 plan_required when the caller's community plan is below `required`; no step when every plan may call. */
export function planSteps(required: Plan | undefined): GuardStep[] {
  if (!required || required === 'free') return [];
  const refusal = () =>
    new ApiError('plan_required', `This endpoint requires the ${planNames[required]} plan or higher.`, {
      hint: `Upgrade the community to the ${planNames[required]} plan (community-admin community set-plan ID ${required}).`,
    });
  return [
    (request) => {
      const principal = request.principal;
      if (principal && !planAtLeast(principal.plan, required)) throw refusal();
    },
  ];
}

/** Answers 403 insufficient_scope, naming the needed and the held permissions, when the key lacks `required`. */
export function permissionSteps(required: Permission | null | undefined): GuardStep[] {
  if (!required) return [];
  return [
    (request) => {
      const held = request.principal?.permissions;
      if (held === undefined || holds(held, required)) return;
      const names = permissionNames(held);
      throw new ApiError('insufficient_scope', `This endpoint needs the permission ${required}.`, {
        hint: `This key holds ${names.length === 0 ? 'no permission' : names.join(', ')}; use a key that holds ${required} (community-admin key create --permissions ${required}) or give this key it (community-admin key set-permissions KEY_ID).`,
      });
    },
  ];
}

/** How the OpenAPI document states a rule: `x-plan`, `x-permission` and a sentence for the description. */
export function documentedRule(rule: RouteRule): { plan: Plan; permission: Permission | 'none'; sentence: string } {
  if (rule.public)
    return { plan: rule.plan, permission: 'none', sentence: 'Needs no API key (public), on every plan; rate limited per address.' };
  const needs = rule.permission ? `the key permission \`${rule.permission}\`` : 'no key permission (any valid key)';
  return {
    plan: rule.plan,
    permission: rule.permission ?? 'none',
    sentence: `Needs the ${planNames[rule.plan]} plan or higher and ${needs}.`,
  };
}
