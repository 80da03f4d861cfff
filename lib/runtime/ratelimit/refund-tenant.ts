// ratelimit.refundTenant: an organisation gets back the count of a request it did not serve, so an outsider spends only
// their own limits there, never the tenant's (docs/design/limits.md#outsiders-spend-nothing).
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';

/**
 * KEYS[1] the tenant counter window the request was counted in (lib/runtime/ratelimit/counters.ts). Takes one back while
 * there is one to take: a window that expired stays gone (nothing is written without its TTL), and DECR keeps the TTL
 * the count set. Returns the count left, or -1 when there was nothing to take back.
 */
export const RATE_LIMIT_REFUND_TENANT = defineScript({
  name: 'ratelimit.refundTenant',
  keys: ['tenantCounter'],
  args: [],
  source: `
local tenant_counter_key = KEYS[1]
local count = tonumber(redis.call('GET', tenant_counter_key))
if not count or count < 1 then return -1 end
return redis.call('DECR', tenant_counter_key)
`,
});

/**
 * Once, on the throttle client (no retry: a retried DECR could give back twice). Never rejects: a refund that did not
 * land leaves the tenant one count higher until its window ends, which is what every request cost before.
 */
export async function refundTenantCount(deps: Deps, tenantCounter: string): Promise<void> {
  await runScript(deps.redis.throttle, RATE_LIMIT_REFUND_TENANT, { keys: { tenantCounter } }).catch(() => undefined);
}

/**
 * The same for each counter window of one request (a request the plan refused after the defaults counted it): one
 * script per window, sent together (the windows may sit in two slots on a cluster). Never rejects.
 */
export async function refundCounts(deps: Deps, counters: string[]): Promise<void> {
  await Promise.all(counters.map((counter) => refundTenantCount(deps, counter)));
}
