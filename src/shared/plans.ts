/** Pricing plans, lowest first. */
export const plans = ['free', 'growth', 'momentum', 'enterprise'] as const;
export type Plan = (typeof plans)[number];

/** True when the value names a plan. */
export const isPlan = (value: string): value is Plan => (plans as readonly string[]).includes(value);

/** True when `actual` is `required` or higher. */
export const planAtLeast = (actual: Plan, required: Plan): boolean => plans.indexOf(actual) >= plans.indexOf(required);
