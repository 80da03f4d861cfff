// apiKeys.check: is this key good for this route of this organisation, and is it within its limits — one Redis round trip
// on a hit, PostgreSQL only on a miss (docs/design/api-keys.md#the-check).
import type { Deps } from '../../deps.ts';
import { API_KEY_ENTRY_TTL_SECONDS, API_KEY_REFUSED_ENTRY_TTL_SECONDS, apiKeyEntrySchema, type ApiKeyEntry } from '../../keys/index.ts';
import { RATE_LIMIT_COUNTER_MAX_SECONDS } from '../../keys/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { decodeJson, encodeJson, redisCall, runScript } from '../../redis/index.ts';
import { entryShape } from '../../runtime/cache/index.ts';
import { counterWindows, type CounterWindows } from '../../runtime/ratelimit/counters.ts';
import { decide, type RateLimitDecision } from '../../runtime/ratelimit/decision.ts';
import { quotasFor, type RateLimitKind } from '../../runtime/ratelimit/limits.ts';
import { ipSubject, retryAfter, throttleWindow } from '../../runtime/throttle/index.ts';
import { API_KEY_CHECK } from './check-script.ts';
import { apiKeyHash } from './key-hash.ts';
import { freshOrgKeyView, knownOrgKeySeq, noteOrgKeyView, orgKeyView, type OrgKeyView } from './org-key-seq.ts';
import { countUnknownKey, unknownKeyGate, type UnknownKeyGate } from './unknown-key-throttle.ts';

export type ActiveApiKey = Extract<ApiKeyEntry, { state: 'active' }>;

export type ApiKeyCheck =
  /** planFound: the organisation's plan entry was in the cache; when not, the defaults decided and the caller fills it. */
  | { kind: 'accepted'; key: ActiveApiKey; decision: RateLimitDecision; planFound: boolean }
  | { kind: 'rate-limited'; decision: Extract<RateLimitDecision, { allowed: false }> }
  /** Unknown in this organisation, revoked or expired: 401, the same answer in every case. */
  | { kind: 'refused' }
  /** The address spent its refusals (api-key-refused-ip in the organisation, api-key-miss-ip across them): 429. */
  | { kind: 'address-limited'; retryAfterSeconds: number }
  | { kind: 'scope-missing' }
  | { kind: 'suspended' }
  /** No such organisation, or a deleted one. */
  | { kind: 'no-organisation' };

export interface ApiKeyRequest {
  key: string;
  organizationId: string;
  /** The scope the route declares (lib/http/function-factory.ts). */
  scope: string;
  /** The route's method and template, as the rate limiter counts it. */
  route: string;
  clientIp: string | undefined;
  correlationId: string;
}

type Reply =
  | { kind: 'limited'; ttl: number }
  | { kind: 'miss' }
  | { kind: 'refused' }
  | { kind: 'entry'; raw: unknown; rest: unknown[]; scoped: boolean };

/**
 * The organisation's view (api_key_seq and state, at most a second old) is read beside the script, so a hit waits for
 * one round trip; an entry older than the view, or none, is read from PostgreSQL, written back, and checked again.
 * Whatever would read PostgreSQL first passes the address's gate across organisations (unknown-key-throttle.ts).
 * Throws when Redis or PostgreSQL does not answer: the caller fails closed.
 */
export async function checkApiKey(deps: Deps, request: ApiKeyRequest): Promise<ApiKeyCheck> {
  const keyHash = await apiKeyHash(deps.config.indexHashKey, request.key);
  const nowMs = deps.clock.now();
  const [entryKey, refusedWindow, windows] = await Promise.all([
    deps.keys.apiKeyEntry(request.organizationId, keyHash),
    throttleWindow(deps, {
      action: 'api-key-refused-ip',
      scope: { kind: 'org', id: request.organizationId },
      subject: ipSubject(request.clientIp),
    }),
    counterWindows(deps, { userId: `api-key ${keyHash}`, route: request.route, organizationId: request.organizationId }, nowMs),
  ]);
  const run = (minSeq: number) => runCheck(deps, request, { entryKey, refusedWindow, windows, minSeq, nowMs });
  // PostgreSQL is asked only past the per-address gate (api-key-miss-ip), read once per check and never on a hit whose
  // view is fresh: an address naming a new organisation each time meets it on every request.
  let gate: Promise<UnknownKeyGate> | undefined;
  const gated = () => (gate ??= unknownKeyGate(deps, request));
  const fresh = freshOrgKeyView(deps, request.organizationId);
  const viewRead = async (): Promise<OrgKeyView | undefined> =>
    (await gated()).allowed ? orgKeyView(deps, request.organizationId) : undefined;
  const [view, first] = await Promise.all([fresh ?? viewRead(), run(knownOrgKeySeq(deps, request.organizationId))]);
  const result = await settle(deps, request, { entryKey, keyHash, view, first, run, gated, windows });
  if (fresh === undefined || result.readPostgres) {
    if (result.check.kind === 'refused' || result.check.kind === 'no-organisation') await countUnknownKey(deps, request);
  }
  return result.check;
}

/** The check once the first script and the view are in: PostgreSQL on a miss or a stale entry, behind the gate. */
async function settle(
  deps: Deps,
  request: ApiKeyRequest,
  at: {
    entryKey: string;
    keyHash: string;
    view: OrgKeyView | undefined;
    first: Reply;
    run: (minSeq: number) => Promise<Reply>;
    gated: () => Promise<UnknownKeyGate>;
    windows: CounterWindows;
  },
): Promise<{ check: ApiKeyCheck; readPostgres: boolean }> {
  const { view, first } = at;
  if (view === undefined) return { check: addressLimited(await at.gated()), readPostgres: false };
  if (view.state === undefined || view.state === 'deleted') return { check: { kind: 'no-organisation' }, readPostgres: false };
  if (view.state === 'suspended') return { check: { kind: 'suspended' }, readPostgres: false };
  let reply = first;
  if (reply.kind === 'miss' || (reply.kind === 'entry' && entrySeq(reply.raw) < view.seq)) {
    const gate = await at.gated();
    if (!gate.allowed) return { check: addressLimited(gate), readPostgres: false };
    const fill = await readFromPostgres(deps, request.organizationId, at.keyHash);
    if (fill.view.state !== 'active') {
      return { check: { kind: fill.view.state === 'suspended' ? 'suspended' : 'no-organisation' }, readPostgres: true };
    }
    const ttl = fill.entry.state === 'active' ? API_KEY_ENTRY_TTL_SECONDS : API_KEY_REFUSED_ENTRY_TTL_SECONDS;
    await redisCall('apiKeys.fill', () => deps.redis.retrySafe.set(at.entryKey, encodeJson(apiKeyEntrySchema, fill.entry), { ex: ttl }));
    reply = await at.run(fill.entry.seq);
    // Gone again between the write and the check (an eviction, a flush): not known, so not accepted.
    if (reply.kind === 'miss') throw new Error('apiKeys.check: the entry just written was not found');
    return { check: outcome(reply, at.windows), readPostgres: true };
  }
  return { check: outcome(reply, at.windows), readPostgres: false };
}

function addressLimited(gate: UnknownKeyGate): ApiKeyCheck {
  return { kind: 'address-limited', retryAfterSeconds: gate.allowed ? 1 : gate.retryAfterSeconds };
}

async function runCheck(
  deps: Deps,
  request: ApiKeyRequest,
  at: {
    entryKey: string;
    refusedWindow: { key: string; limit: number; ttlSeconds: number };
    windows: CounterWindows;
    minSeq: number;
    nowMs: number;
  },
): Promise<Reply> {
  const quotas = quotasFor(deps.config.rateLimitScale);
  const { prefix, suffix } = entryShape(deps, { organizationId: request.organizationId, resource: 'rate-limits' });
  const [routeCurrent, routePrevious, routeNext, keyCurrent, keyPrevious, keyNext, tenantCurrent, tenantPrevious, tenantNext] = at.windows
    .keys as [string, string, string, string, string, string, string, string, string];
  const reply = await runScript(deps.redis.throttle, API_KEY_CHECK, {
    keys: {
      entry: at.entryKey,
      refused: at.refusedWindow.key,
      routeCurrent,
      routePrevious,
      routeNext,
      keyCurrent,
      keyPrevious,
      keyNext,
      tenantCurrent,
      tenantPrevious,
      tenantNext,
      generation: deps.keys.orgCacheGeneration(request.organizationId),
    },
    args: {
      minSeq: at.minSeq,
      nowMs: at.nowMs,
      scope: request.scope,
      refusedWindowTtl: at.refusedWindow.ttlSeconds,
      refusedLimit: at.refusedWindow.limit,
      routeQuota: quotas['user-route'],
      keyQuota: quotas.user,
      tenantQuota: quotas.tenant,
      previousWeight: String(at.windows.previousWeight),
      ttlSeconds: RATE_LIMIT_COUNTER_MAX_SECONDS,
      entryPrefix: prefix,
      entrySuffix: suffix,
    },
  });
  const values = Array.isArray(reply) ? (reply as unknown[]) : [];
  const [kind, raw, ...rest] = values;
  if (kind === 'limited') return { kind: 'limited', ttl: retryAfter(raw, at.refusedWindow.ttlSeconds) };
  if (kind === 'miss') return { kind: 'miss' };
  if (kind === 'refused') return { kind: 'refused' };
  if (kind === 'scope-missing') return { kind: 'entry', raw, rest: [], scoped: false };
  if (kind === 'checked') return { kind: 'entry', raw, rest, scoped: true };
  throw new Error('apiKeys.check: malformed reply');
}

function entrySeq(raw: unknown): number {
  return decodeJson(apiKeyEntrySchema, raw)?.seq ?? -1;
}

function outcome(reply: Reply, windows: CounterWindows): ApiKeyCheck {
  if (reply.kind === 'limited') return { kind: 'address-limited', retryAfterSeconds: reply.ttl };
  if (reply.kind !== 'entry') return { kind: 'refused' };
  const entry = decodeJson(apiKeyEntrySchema, reply.raw);
  if (entry === undefined || entry.state !== 'active') throw new Error('apiKeys.check: malformed entry');
  if (!reply.scoped) return { kind: 'scope-missing' };
  const numbers = reply.rest;
  if (numbers.length !== 2 + 3 * 3 || !numbers.every((value) => typeof value === 'number' && value >= 0)) {
    throw new Error('apiKeys.check: malformed count');
  }
  const n = numbers as number[];
  const kinds: RateLimitKind[] = ['user-route', 'user', 'tenant'];
  const decision = decide({
    admitted: n[0] === 1,
    limits: kinds.map((kind, i) => ({ kind, quota: n[2 + i * 3]!, current: n[3 + i * 3]!, previous: n[4 + i * 3]! })),
    windows,
  });
  return decision.allowed ? { kind: 'accepted', key: entry, decision, planFound: n[1] === 1 } : { kind: 'rate-limited', decision };
}

interface KeyRow {
  state: OrgKeyView['state'];
  api_key_seq: string;
  id: string | null;
  created_by: string | null;
  scopes: string[] | null;
  expires_at_ms: string | null;
  rate_limit_per_minute: number | null;
  revoked: boolean | null;
}

/** The key's row and the organisation's seq in one statement (one snapshot), as the entry to write back. */
async function readFromPostgres(deps: Deps, organizationId: string, keyHash: string): Promise<{ entry: ApiKeyEntry; view: OrgKeyView }> {
  const startedMs = deps.clock.now();
  const rows = await dbCall('read', 'apiKeys.read-for-check', (signal) =>
    deps.db.query<KeyRow>(
      `SELECT o.state, o.api_key_seq, k.id, k.created_by, k.scopes, k.rate_limit_per_minute,
              (extract(epoch FROM k.expires_at) * 1000)::bigint AS expires_at_ms, k.revoked_at IS NOT NULL AS revoked
         FROM organizations o LEFT JOIN api_keys k ON k.key_hash = $2 AND k.organization_id = o.id
        WHERE o.id = $1`,
      [organizationId, keyHash],
      { signal },
    ),
  );
  const row = rows[0];
  const seq = row === undefined ? 0 : Number(row.api_key_seq);
  const view = noteOrgKeyView(deps, organizationId, { seq, state: row?.state, readAtMs: startedMs });
  if (row?.id == null || row.revoked !== false || row.created_by === null || row.scopes === null) {
    return { entry: { state: 'refused', seq }, view };
  }
  return {
    entry: {
      state: 'active',
      apiKeyId: row.id,
      organizationId,
      createdBy: row.created_by,
      scopes: row.scopes,
      expiresAtMs: row.expires_at_ms === null ? null : Number(row.expires_at_ms),
      rateLimitPerMinute: row.rate_limit_per_minute,
      seq,
    },
    view,
  };
}
