import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { type Plan, planAtLeast } from '../shared/plans.js';

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

/** Answers 403 plan_required when the caller's community plan is below the route's minimum. */
export function registerPlanGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const principal = request.principal;
    const url = request.routeOptions.url;
    if (!principal || !url) return;
    const required = requiredPlan(request.method, url);
    if (required && !planAtLeast(principal.plan, required)) {
      throw new ApiError('plan_required', `This endpoint requires the ${planNames[required]} plan or higher.`, {
        hint: `Upgrade the community to the ${planNames[required]} plan (community-admin community set-plan ID ${required}).`,
      });
    }
  });
}
