// ratelimit.count: one script reads and counts all of a request's limits in one round trip on the main store.
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { entryShape } from '../cache/index.ts';
import { RATE_LIMIT_COUNTER_MAX_SECONDS } from '../../keys/index.ts';
import { counterWindows, type CounterWindows, type RateLimitTarget } from './counters.ts';
import { quotasFor, type RateLimitKind } from './limits.ts';
import { LUA_PLAN_QUOTAS, LUA_SLIDING_WINDOW } from './lua.ts';

/**
 * On an organisation's route. KEYS: each limit's current, previous and next window (user-route, user, tenant), then the
 * organisation's cache generation. ARGV: the three default quotas, the previous window's weight, the counters' TTL in
 * seconds, the plan entry's key prefix and suffix around the generation (orgCacheEntryPrefix; derived here, inside the
 * organisation's hash tag like every declared key). Returns {admitted, plan entry found, then per limit: quota,
 * current, previous}.
 */
export const RATE_LIMIT_COUNT_ORG = defineScript({
  name: 'ratelimit.countOrg',
  keys: [
    'routeCurrent',
    'routePrevious',
    'routeNext',
    'userCurrent',
    'userPrevious',
    'userNext',
    'tenantCurrent',
    'tenantPrevious',
    'tenantNext',
    'generation',
  ],
  args: ['routeQuota', 'userQuota', 'tenantQuota', 'previousWeight', 'ttlSeconds', 'entryPrefix', 'entrySuffix'],
  source: `
local route_current_key = KEYS[1]
local route_previous_key = KEYS[2]
local route_next_key = KEYS[3]
local user_current_key = KEYS[4]
local user_previous_key = KEYS[5]
local user_next_key = KEYS[6]
local tenant_current_key = KEYS[7]
local tenant_previous_key = KEYS[8]
local tenant_next_key = KEYS[9]
local generation_key = KEYS[10]
local route_quota = tonumber(ARGV[1])
local user_quota = tonumber(ARGV[2])
local tenant_quota = tonumber(ARGV[3])
local previous_weight = tonumber(ARGV[4])
local ttl_seconds = tonumber(ARGV[5])
local entry_prefix = ARGV[6]
local entry_suffix = ARGV[7]
${LUA_SLIDING_WINDOW}
${LUA_PLAN_QUOTAS}
local quotas = {route_quota, user_quota, tenant_quota}
local plan_found = plan_quotas(generation_key, entry_prefix, entry_suffix, quotas)
local counter_keys = {
  route_current_key, route_previous_key, route_next_key,
  user_current_key, user_previous_key, user_next_key,
  tenant_current_key, tenant_previous_key, tenant_next_key,
}
local reply = sliding_admit(counter_keys, quotas, previous_weight, ttl_seconds)
table.insert(reply, 2, plan_found)
return reply
`,
});

/** On a route without an organisation: the user's two limits under the user's hash tag, no plan. Same reply, plan found 1. */
export const RATE_LIMIT_COUNT_USER = defineScript({
  name: 'ratelimit.countUser',
  keys: ['routeCurrent', 'routePrevious', 'routeNext', 'userCurrent', 'userPrevious', 'userNext'],
  args: ['routeQuota', 'userQuota', 'previousWeight', 'ttlSeconds'],
  source: `
local route_current_key = KEYS[1]
local route_previous_key = KEYS[2]
local route_next_key = KEYS[3]
local user_current_key = KEYS[4]
local user_previous_key = KEYS[5]
local user_next_key = KEYS[6]
local route_quota = tonumber(ARGV[1])
local user_quota = tonumber(ARGV[2])
local previous_weight = tonumber(ARGV[3])
local ttl_seconds = tonumber(ARGV[4])
${LUA_SLIDING_WINDOW}
local counter_keys = {route_current_key, route_previous_key, route_next_key, user_current_key, user_previous_key, user_next_key}
local reply = sliding_admit(counter_keys, {route_quota, user_quota}, previous_weight, ttl_seconds)
table.insert(reply, 2, 1)
return reply
`,
});

export interface LimitCount {
  kind: RateLimitKind;
  quota: number;
  /** The current window's count with the next one's (clocks ahead), this request included when it was admitted. */
  current: number;
  previous: number;
}

export interface CountReply {
  admitted: boolean;
  /** False: the organisation's plan entry was not cached, so the defaults counted and the caller fills it. */
  planFound: boolean;
  limits: LimitCount[];
  windows: CounterWindows;
}

/** One EVALSHA on the throttle client (short deadline, no retry: a retried INCR could count twice). Throws when Redis does not answer. */
export async function countRequest(deps: Deps, target: RateLimitTarget, nowMs: number): Promise<CountReply> {
  const windows = await counterWindows(deps, target, nowMs);
  const quotas = quotasFor(deps.config.rateLimitScale);
  const [routeCurrent, routePrevious, routeNext, userCurrent, userPrevious, userNext, tenantCurrent, tenantPrevious, tenantNext] =
    windows.keys as [string, string, string, string, string, string, string?, string?, string?];
  // String(): the shortest text that reads back as the same double, so Lua floors the same product JS does.
  const previousWeight = String(windows.previousWeight);
  let reply: unknown;
  if (target.organizationId !== undefined && tenantCurrent !== undefined && tenantPrevious !== undefined && tenantNext !== undefined) {
    const { prefix, suffix } = entryShape(deps, { organizationId: target.organizationId, resource: 'rate-limits' });
    reply = await runScript(deps.redis.throttle, RATE_LIMIT_COUNT_ORG, {
      keys: {
        routeCurrent,
        routePrevious,
        routeNext,
        userCurrent,
        userPrevious,
        userNext,
        tenantCurrent,
        tenantPrevious,
        tenantNext,
        generation: deps.keys.orgCacheGeneration(target.organizationId),
      },
      args: {
        routeQuota: quotas['user-route'],
        userQuota: quotas.user,
        tenantQuota: quotas.tenant,
        previousWeight,
        ttlSeconds: RATE_LIMIT_COUNTER_MAX_SECONDS,
        entryPrefix: prefix,
        entrySuffix: suffix,
      },
    });
  } else {
    reply = await runScript(deps.redis.throttle, RATE_LIMIT_COUNT_USER, {
      keys: { routeCurrent, routePrevious, routeNext, userCurrent, userPrevious, userNext },
      args: { routeQuota: quotas['user-route'], userQuota: quotas.user, previousWeight, ttlSeconds: RATE_LIMIT_COUNTER_MAX_SECONDS },
    });
  }
  return { ...parseReply(reply, windows), windows };
}

function parseReply(reply: unknown, windows: CounterWindows): Omit<CountReply, 'windows'> {
  const values = Array.isArray(reply) ? reply : [];
  if (values.length !== 2 + windows.kinds.length * 3 || !values.every((value) => typeof value === 'number' && value >= 0)) {
    throw new Error('ratelimit.count: malformed reply');
  }
  const numbers = values as number[];
  return {
    admitted: numbers[0] === 1,
    planFound: numbers[1] === 1,
    limits: windows.kinds.map((kind, i) => ({
      kind,
      quota: numbers[2 + i * 3]!,
      current: numbers[3 + i * 3]!,
      previous: numbers[4 + i * 3]!,
    })),
  };
}
