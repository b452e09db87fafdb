import type { Permission } from '../shared/permissions.js';
import type { RouteRuleTable } from '../shared/route-rules.js';

const onEveryPlan = (permission: Permission) => ({ plan: 'free' as const, permission });

/**
 * The plan and the key permission of every API route, in one table so the rule of each route can
 * be read (and audited) in one place; the HTTP layer applies it (src/http/plans.ts, wired in
 * app.ts) and the OpenAPI document shows both per operation (x-plan, x-permission). A route
 * missing here needs only a valid key on any plan; test/modules/api-keys/openapi-rules.test.ts
 * fails for a documented operation that is missing.
 */
export const routeRules: RouteRuleTable = {
  'GET /admin/v0/calendar_events': onEveryPlan('calendar_events:read'),
  'GET /admin/v0/calendar_events/:calendar_event_id': onEveryPlan('calendar_events:read'),
  'POST /admin/v0/calendar_events': onEveryPlan('calendar_events:write'),
  'PATCH /admin/v0/calendar_events/:calendar_event_id': onEveryPlan('calendar_events:write'),
  'DELETE /admin/v0/calendar_events/:calendar_event_id': onEveryPlan('calendar_events:write'),
  'PATCH /admin/v0/calendar_events/:calendar_event_id/attendees': onEveryPlan('calendar_events:write'),
  'POST /admin/v0/members': { plan: 'enterprise', permission: 'members:write' },
  'POST /admin/v0/members/check': onEveryPlan('members:read'),
  'POST /admin/v0/members/:member_id/deactivate': { plan: 'enterprise', permission: 'members:write' },
  'POST /admin/v0/groups/:group_id/members': onEveryPlan('groups:write'),
  'GET /admin/v0/feeds': onEveryPlan('feeds:read'),
  'GET /admin/v0/feeds/:feed_id': onEveryPlan('feeds:read'),
  'GET /admin/v0/feeds/:feed_id/posts': onEveryPlan('feeds:read'),
  'GET /admin/v0/posts/:post_id': onEveryPlan('feeds:read'),
  'GET /admin/v0/search': onEveryPlan('feeds:read'),
  // Webhook endpoints (issue 18): one permission for the three, as their list shows the targets the
  // community's data is sent to; Enterprise like the other writes that reach outside the product.
  'GET /admin/v0/webhook_endpoints': { plan: 'enterprise', permission: 'webhooks:write' },
  'POST /admin/v0/webhook_endpoints': { plan: 'enterprise', permission: 'webhooks:write' },
  'DELETE /admin/v0/webhook_endpoints/:id': { plan: 'enterprise', permission: 'webhooks:write' },
  // Uploads (docs/files.md): on every plan, as the events whose cover images they are; a permission of their own.
  'POST /admin/v0/files': onEveryPlan('files:write'),
  'POST /admin/v0/webhook_endpoints/:id/test': { plan: 'enterprise', permission: 'webhooks:write' },
  'GET /admin/v0/webhook_endpoints/:id/deliveries': { plan: 'enterprise', permission: 'webhooks:write' },
  'POST /admin/v0/webhook_deliveries/:id/redeliver': { plan: 'enterprise', permission: 'webhooks:write' },
  // Awards (issue 32): on every plan, like group adds: recognition is part of running any community.
  'POST /admin/v0/awards/:award_id/assign': onEveryPlan('awards:write'),
  // The console's sign-in (docs/console.md): no key (it is how a browser gets one), on every plan.
  'POST /admin/v0/console/sessions': { plan: 'free', permission: null, public: true },
  // ---- console-ops-api (issue 39): the console's Webhooks and Slack pages ----
  // Webhook extensions: the same plan and permission as the other webhook routes.
  'GET /admin/v0/webhook_event_types': { plan: 'enterprise', permission: 'webhooks:write' },
  'PATCH /admin/v0/webhook_endpoints/:id': { plan: 'enterprise', permission: 'webhooks:write' },
  'POST /admin/v0/webhook_endpoints/:id/redeliver_failed': { plan: 'enterprise', permission: 'webhooks:write' },
  // Slack: on every plan, like the chat sync itself (a CLI command on every plan); reading the
  // connection's state and starting a backfill are separate permissions.
  'GET /admin/v0/chat/status': onEveryPlan('chat:read'),
  'GET /admin/v0/chat/sync_jobs/:id': onEveryPlan('chat:read'),
  'POST /admin/v0/chat/sync_jobs': onEveryPlan('chat:write'),
  // ---- end console-ops-api ----
  // Calendar feeds (issue 40): on every plan, as the events they show; a member's own feed is a member write.
  'GET /admin/v0/calendar_feeds': onEveryPlan('calendar_events:write'),
  'POST /admin/v0/calendar_feeds': onEveryPlan('calendar_events:write'),
  'DELETE /admin/v0/calendar_feeds/:id': onEveryPlan('calendar_events:write'),
  'POST /admin/v0/members/:member_id/calendar_feed': onEveryPlan('members:write'),
  // The activity log (issue 38): on every plan, unlike the products that sell it on their dearest one.
  'GET /admin/v0/activities': onEveryPlan('activities:read'),
  'GET /admin/v0/activities/export': onEveryPlan('activities:read'),
  // Any valid key may describe itself: it is how a client learns what it holds.
  'GET /admin/v0/api_key/me': { plan: 'free', permission: null },

  // --- console-api (issue 39): the console's lists and key management (docs/members.md, docs/api-keys.md) ---
  // The member list on every plan, like `POST /members/check` (members:read): reading the community's
  // own members reaches nothing outside the product; the Enterprise gate is on the writes that invite.
  'GET /admin/v0/members': onEveryPlan('members:read'),
  'GET /admin/v0/groups': onEveryPlan('groups:read'),
  // Keys exist on every plan; managing them needs api_keys:write, which `all` never implies.
  'GET /admin/v0/api_keys': onEveryPlan('api_keys:write'),
  'POST /admin/v0/api_keys': onEveryPlan('api_keys:write'),
  'POST /admin/v0/api_keys/:id/rotate': onEveryPlan('api_keys:write'),
  'DELETE /admin/v0/api_keys/:id': onEveryPlan('api_keys:write'),
  'GET /admin/v0/awards': onEveryPlan('awards:read'),
  'POST /admin/v0/awards': onEveryPlan('awards:write'),
  'GET /admin/v0/files': onEveryPlan('files:read'),
  // --- end console-api ---
};
