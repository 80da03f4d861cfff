// tenants.resolve: the pre-auth lookup of a tenant by slug or host. The per-IP limiter and the cache read are one script
// (one round trip); a miss or an unreachable Redis reads PostgreSQL. Fails open, loudly, and never widens the payload.
import type { Deps } from '../../deps.ts';
import { errorKind } from '../../log/logger.ts';
import { decodeJson, defineScript, rethrowDefect, runScript } from '../../redis/index.ts';
import { ipSubject, LUA_THROTTLE_HIT, retryAfter, throttleWindow } from '../throttle/index.ts';
import { lookupTenant, type ResolveQuery } from './lookup.ts';
import { publicTenantSchema, toPublicTenant, type PublicTenant } from './public-tenant.ts';
import { rememberResolution } from './remember.ts';
import { RESOLVE_SCOPE, resolveKeys } from './resolve-keys.ts';

/**
 * KEYS[1] the caller's limiter counter (throttleCounter, platform:{tenant-resolve}), KEYS[2] the name's entry
 * (tenantResolveSlug or tenantResolveDomain), KEYS[3] the miss set of the same kind, KEYS[4] the resolve generation
 * (tenantResolveGeneration); all under one hash tag
 * ARGV[1] seconds left in the window, ARGV[2] the limit, ARGV[3] the name's keyed hash (member of the miss set),
 * ARGV[4] now (unix ms)
 * Returns {count, ttl, 'limited'} over the limit (nothing read), {count, ttl, 'hit', generation, payload},
 * {count, ttl, 'unknown'} for a remembered miss, or {count, ttl, 'miss', generation}. The generation is "0" when none
 * was ever bumped (or it lapsed) and '' when the stored one is malformed (the fill then writes nothing): the fill
 * hands it back, so what it read from PostgreSQL is stored only if no invalidation landed in between.
 */
export const RESOLVE_TENANT = defineScript({
  name: 'tenants.resolve',
  keys: ['counter', 'entry', 'misses', 'generation'],
  args: ['windowTtl', 'limit', 'member', 'now'],
  source: `
local counter_key = KEYS[1]
local entry_key = KEYS[2]
local misses_key = KEYS[3]
local generation_key = KEYS[4]
local window_ttl = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local member = ARGV[3]
local now = tonumber(ARGV[4])
${LUA_THROTTLE_HIT}
local count, ttl = hit_throttle(counter_key, window_ttl)
if count > limit then
  return {count, ttl, 'limited'}
end
local generation = redis.call('GET', generation_key)
if not generation then
  generation = '0'
elseif string.len(generation) ~= 32 or not string.match(generation, '^[0-9a-f]+$') then
  generation = ''
end
local payload = redis.call('GET', entry_key)
if payload then
  return {count, ttl, 'hit', generation, payload}
end
local expires_at = redis.call('ZSCORE', misses_key, member)
if expires_at and tonumber(expires_at) > now then
  return {count, ttl, 'unknown'}
end
return {count, ttl, 'miss', generation}
`,
});

export interface ResolveInput {
  query: ResolveQuery;
  /** The caller's address as the runtime's edge reports it, counted as ipSubject gives it (an IPv6 caller per /64). */
  clientIp: string | undefined;
  correlationId: string;
}

export type ResolveOutcome =
  | { ok: true; tenant: PublicTenant }
  /** Unknown, or deleted: one answer. */
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };

export async function resolveTenant(deps: Deps, input: ResolveInput): Promise<ResolveOutcome> {
  const [window, keys] = await Promise.all([
    throttleWindow(deps, { action: 'tenant-resolve', scope: RESOLVE_SCOPE, subject: ipSubject(input.clientIp) }),
    resolveKeys(deps, input.query),
  ]);
  let reply: unknown;
  try {
    // The throttle client: 500 ms, no retry (a retried INCR would count twice); the cache read rides along.
    reply = await runScript(deps.redis.throttle, RESOLVE_TENANT, {
      keys: { counter: window.key, entry: keys.entry, misses: keys.misses, generation: keys.generation },
      args: { windowTtl: window.ttlSeconds, limit: window.limit, member: keys.member, now: deps.clock.now() },
    });
  } catch (error) {
    // A defect of ours never opens the limiter: it is a 500 (lib/redis/reply-class.ts).
    rethrowDefect(error);
    // Fail open (docs/design/failure-semantics.md#failure-semantics): the limiter is off and the cache skipped while Redis is down; this
    // WARN is the only signal. It names neither key nor address; nothing is written back in this request.
    deps.logger.warn('tenant_resolve_degraded', {
      kind: input.query.kind,
      errorKind: errorKind(error),
      correlationId: input.correlationId,
    });
    return answer(toTenant(await lookupTenant(deps, input.query)));
  }
  const [, ttl, outcome, generation, payload] = Array.isArray(reply) ? reply : [];
  if (outcome === 'limited') return { ok: false, reason: 'rate-limited', retryAfterSeconds: retryAfter(ttl, window.ttlSeconds) };
  if (outcome === 'unknown') return { ok: false, reason: 'not-found' };
  if (outcome === 'hit') {
    const cached = decodeJson(publicTenantSchema, payload);
    // A value that fails the whitelist is a miss, and the write below replaces it.
    if (cached !== undefined) return { ok: true, tenant: cached };
  }
  const tenant = toTenant(await lookupTenant(deps, input.query));
  await rememberResolution(deps, keys, tenant, {
    generation: typeof generation === 'string' ? generation : '',
    correlationId: input.correlationId,
  });
  return answer(tenant);
}

function toTenant(row: Awaited<ReturnType<typeof lookupTenant>>): PublicTenant | undefined {
  return row === undefined ? undefined : toPublicTenant(row);
}

function answer(tenant: PublicTenant | undefined): ResolveOutcome {
  return tenant === undefined ? { ok: false, reason: 'not-found' } : { ok: true, tenant };
}
