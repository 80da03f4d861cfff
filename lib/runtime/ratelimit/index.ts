// ratelimit: the API rate limits of every authenticated request (per user and route, per user, per tenant), counted in
// Redis by one script beside the revocation check, with an in-isolate memory of refusals (docs/design/limits.md#api-rate-limits).
export { checkRateLimit } from './check-rate-limit.ts';
export { rememberedRefusal, rememberRefusal } from './remembered.ts';
export { rateLimitHeaders } from './headers.ts';
export { refundTenantCount } from './refund-tenant.ts';
export { withoutTenant, type RateLimitDecision } from './decision.ts';
export type { RateLimitTarget } from './counters.ts';
export { viewBlock } from './view-block.ts';
export { fillPlanLimitsOnce } from './fill-plan-once.ts';
export { liftBlock } from './lift-block.ts';
