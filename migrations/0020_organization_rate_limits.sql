-- An organisation's plan limits for the API rate limiter (docs/design/limits.md#api-rate-limits): a row only where the
-- plan differs from the defaults in lib/runtime/ratelimit/limits.ts; a NULL column keeps that limit's default.
-- Read through the organisation's cache (lib/runtime/ratelimit/plan.ts), so a change reaches every isolate within the
-- cache entry's TTL (5 minutes), or at once after POST /ops/tenants/{orgId}/cache/invalidate.
CREATE TABLE organization_rate_limits (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  user_route_per_minute integer CHECK (user_route_per_minute BETWEEN 1 AND 10000000),
  user_per_minute integer CHECK (user_per_minute BETWEEN 1 AND 10000000),
  tenant_per_minute integer CHECK (tenant_per_minute BETWEEN 1 AND 10000000),
  updated_at timestamptz NOT NULL DEFAULT now()
);
