import type { RouteOptions } from 'fastify';
import { ApiError } from '../errors.js';
import { type Plan, planAtLeast } from '../shared/plans.js';
import type { GuardStep } from './request-guard.js';

/**
 * The minimum plan of every route that needs more than `free`. One table, so the rule of each
 * route can be read (and audited) in one place; routes not listed are open to every plan.
 */
export const planRequirements: Readonly<Record<string, Plan>> = {
  'POST /admin/v0/members': 'enterprise',
  'POST /admin/v0/members/:member_id/deactivate': 'enterprise',
};

/** The minimum plan of a route, or undefined when every plan may call it. */
export const requiredPlan = (method: string, url: string): Plan | undefined => planRequirements[`${method} ${url}`];

const planNames: Record<Plan, string> = { free: 'Free', growth: 'Growth', momentum: 'Momentum', enterprise: 'Enterprise' };

/** The minimum plan of a route as registered (one method, or several), or undefined for every plan. */
export function routePlan(route: Pick<RouteOptions, 'method' | 'url'>): Plan | undefined {
  for (const method of [route.method].flat()) {
    const required = requiredPlan(method, route.url);
    if (required) return required;
  }
  return undefined;
}

/** Answers 403 plan_required when the caller's community plan is below `required`; no step when every plan may call. */
export function planSteps(required: Plan | undefined): GuardStep[] {
  if (!required) return [];
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
