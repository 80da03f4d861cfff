// A fresh runtime session on a miss: under the refresh lock, one login for the whole fleet; everyone else waits and re-reads.
import { bytesToHex, randomBytes } from '../../crypto/index.ts';
import { openSecret } from '../../crypto/secret-box.ts';
import { defineScript, encodeJson, runScript } from '../../redis/index.ts';
import { passwordSha1Hex } from '../../upstream/syrve/index.ts';
import type { Deps } from '../../deps.ts';
import { passwordBinding, type SyrveConnection } from './connection.ts';
import { deleteIfEquals } from '../compare-and-delete.ts';
import { countReconnectFailure } from './reconnect-failures.ts';
import { LOCK_TTL_MS, LOGIN_TIMEOUT_MS, POLL_JITTER_MS, POLL_MIN_MS, WAIT_MARGIN_MS } from './policy.ts';
import { decodeSession, sessionRecordSchema, type SessionRecord } from './session-record.ts';

/**
 * KEYS[1] runtime session, KEYS[2] refresh lock
 * ARGV[1] lock owner (128 random bits, hex), ARGV[2] lock TTL ms, ARGV[3] the credential version the caller holds
 * Returns {1, session} when a session of that version is cached (someone else finished the login);
 * {2} when the lock is the caller's (taken now, or already: a retried call); {0, lock PTTL ms} when another holds it.
 * A session of another credential version counts as absent. Safe to run twice.
 */
export const TAKE_REFRESH_LOCK = defineScript({
  name: 'syrve.take-refresh-lock',
  keys: ['session', 'lock'],
  args: ['owner', 'lockTtlMs', 'version'],
  source: `
local session_key = KEYS[1]
local lock_key = KEYS[2]
local owner = ARGV[1]
local lock_ttl_ms = tonumber(ARGV[2])
local version = tonumber(ARGV[3])
local session = redis.call('GET', session_key)
if session then
  local decoded_ok, decoded = pcall(cjson.decode, session)
  if decoded_ok and type(decoded) == 'table' and decoded.credentialVersion == version then return {1, session} end
end
local holder = redis.call('GET', lock_key)
if holder == owner then return {2} end
if not holder then
  redis.call('SET', lock_key, owner, 'PX', lock_ttl_ms)
  return {2}
end
return {0, redis.call('PTTL', lock_key)}
`,
});

/**
 * KEYS[1] refresh lock, KEYS[2] runtime session, KEYS[3] newest credential version (registry row syrveCredentialVersion)
 * ARGV[1] lock owner, ARGV[2] session JSON, ARGV[3] session TTL ms (0: store nothing), ARGV[4] the login's credential version
 * Returns 1 stored (or nothing to store) and the lock released; 0 the lock is no longer the caller's (it expired: nothing
 * written); 2 a rotation made newer credentials meanwhile (nothing written, lock released). Safe to run twice: a
 * store that already landed answers 1 again.
 */
export const STORE_SESSION = defineScript({
  name: 'syrve.store-session',
  keys: ['lock', 'session', 'newestVersion'],
  args: ['owner', 'session', 'ttlMs', 'version'],
  source: `
local lock_key = KEYS[1]
local session_key = KEYS[2]
local newest_version_key = KEYS[3]
local owner = ARGV[1]
local session = ARGV[2]
local ttl_ms = tonumber(ARGV[3])
local version = tonumber(ARGV[4])
if ttl_ms > 0 and redis.call('GET', session_key) == session then return 1 end
if redis.call('GET', lock_key) ~= owner then return 0 end
redis.call('DEL', lock_key)
local newest = tonumber(redis.call('GET', newest_version_key) or '')
if newest and newest > version then return 2 end
if ttl_ms > 0 then redis.call('SET', session_key, session, 'PX', ttl_ms) end
return 1
`,
});

/** A session to call with: `raw` is the stored string (compare-and-delete matches it), undefined when nothing was cached. */
export interface ActiveSession {
  sessionId: string;
  raw: string | undefined;
  source: 'cached' | 'acquired';
}

export type AcquireOutcome =
  | { ok: true; session: ActiveSession }
  | { ok: false; reason: 'login-refused'; status: number }
  | { ok: false; reason: 'upstream-failed'; status?: number }
  | { ok: false; reason: 'lock-timeout' }
  | { ok: false; reason: 'credentials-changed' };

/**
 * Callers of one isolate share the acquisition in flight for the same connection and credential version. A waiter
 * gives up at the lock's TTL plus a margin, or at `waitUntil` (the caller's budget) if that comes first.
 */
export function acquireSession(deps: Deps, connection: SyrveConnection, correlationId: string, waitUntil: number): Promise<AcquireOutcome> {
  if (deps.config.syrve.sessionCacheSeconds <= 0) return loginUncached(deps, connection, correlationId);
  const key = `${deps.keys.syrveRuntimeToken(connection.organizationId, connection.connectionId)}#${connection.credentialVersion}`;
  return deps.inflight.run(key, () => acquireUnderLock(deps, connection, correlationId, waitUntil));
}

async function acquireUnderLock(
  deps: Deps,
  connection: SyrveConnection,
  correlationId: string,
  waitUntil: number,
): Promise<AcquireOutcome> {
  const { keys, clock } = deps;
  const sessionKey = keys.syrveRuntimeToken(connection.organizationId, connection.connectionId);
  const lockKey = keys.syrveRuntimeTokenRefreshLock(connection.organizationId, connection.connectionId);
  const owner = bytesToHex(randomBytes(16));
  const giveUpAt = Math.min(clock.now() + LOCK_TTL_MS + WAIT_MARGIN_MS, waitUntil);
  for (;;) {
    const reply = await runScript(deps.redis.retrySafe, TAKE_REFRESH_LOCK, {
      keys: { session: sessionKey, lock: lockKey },
      args: { owner, lockTtlMs: LOCK_TTL_MS, version: connection.credentialVersion },
    });
    const [status, value] = Array.isArray(reply) ? reply : [];
    if (status === 1 && typeof value === 'string') {
      const cached = readSession(value, connection);
      if (cached !== undefined) return { ok: true, session: { sessionId: cached.sessionId, raw: value, source: 'cached' } };
      // Unreadable: take it away (only if it is still that value) and go round again.
      await deleteIfEquals(deps, sessionKey, value);
      continue;
    }
    if (status === 2) return loginAndStore(deps, connection, { owner, lockKey, sessionKey }, correlationId);
    const left = giveUpAt - clock.now();
    if (left <= 0) return { ok: false, reason: 'lock-timeout' };
    await sleep(Math.min(left, POLL_MIN_MS + Math.random() * POLL_JITTER_MS));
  }
}

interface HeldLock {
  owner: string;
  lockKey: string;
  sessionKey: string;
}

async function loginAndStore(deps: Deps, connection: SyrveConnection, lock: HeldLock, correlationId: string): Promise<AcquireOutcome> {
  const login = await loginWithCredentials(deps, connection, correlationId).catch(async (error: unknown) => {
    await deleteIfEquals(deps, lock.lockKey, lock.owner).catch(() => undefined);
    throw error;
  });
  if (!login.ok) {
    await deleteIfEquals(deps, lock.lockKey, lock.owner);
    return login;
  }
  const createdAtMs = deps.clock.now();
  const cacheMs = deps.config.syrve.sessionCacheSeconds * 1000;
  // TTL ≤ the upstream's expiry when it gives one, and never above the configured session-cache bound.
  const expiresAtMs = Math.min(login.expiresAtMs ?? Number.POSITIVE_INFINITY, createdAtMs + cacheMs);
  const ttlMs = Math.max(0, Math.floor(expiresAtMs - createdAtMs));
  const record: SessionRecord = {
    connectionId: connection.connectionId,
    organizationId: connection.organizationId,
    sessionId: login.sessionId,
    createdAtUtc: new Date(createdAtMs).toISOString(),
    expiresAtUtc: new Date(expiresAtMs).toISOString(),
    sessionTransport: 'rest_session',
    correlationId,
    credentialVersion: connection.credentialVersion,
  };
  const raw = encodeJson(sessionRecordSchema, record);
  let stored: unknown;
  try {
    stored = await runScript(deps.redis.retrySafe, STORE_SESSION, {
      keys: {
        lock: lock.lockKey,
        session: lock.sessionKey,
        newestVersion: deps.keys.syrveCredentialVersion(connection.organizationId, connection.connectionId),
      },
      args: { owner: lock.owner, session: raw, ttlMs, version: connection.credentialVersion },
    });
  } catch (error) {
    // The seat is taken and nobody will find the session: give it back.
    await deps.syrve.logout({ baseUrl: connection.baseUrl }, login.sessionId);
    throw error;
  }
  if (stored === 2) {
    await deps.syrve.logout({ baseUrl: connection.baseUrl }, login.sessionId);
    return { ok: false, reason: 'credentials-changed' };
  }
  // 0: the lock expired under a slow login; the session is good for this call but was not cached.
  return { ok: true, session: { sessionId: login.sessionId, raw: stored === 1 && ttlMs > 0 ? raw : undefined, source: 'acquired' } };
}

/** Caching off (SYRVE_SESSION_CACHE_SECONDS ≤ 0): every call logs in, without the lock (there is nothing to share). */
async function loginUncached(deps: Deps, connection: SyrveConnection, correlationId: string): Promise<AcquireOutcome> {
  const login = await loginWithCredentials(deps, connection, correlationId);
  if (!login.ok) return login;
  return { ok: true, session: { sessionId: login.sessionId, raw: undefined, source: 'acquired' } };
}

type LoginOutcome =
  | { ok: true; sessionId: string; expiresAtMs?: number }
  | { ok: false; reason: 'login-refused'; status: number }
  | { ok: false; reason: 'upstream-failed'; status?: number };

async function loginWithCredentials(deps: Deps, connection: SyrveConnection, correlationId: string): Promise<LoginOutcome> {
  const password = await openSecret(deps.config.secretsKeys, connection.sealedPassword, passwordBinding(connection));
  const result = await deps.syrve.login(
    { baseUrl: connection.baseUrl },
    { login: connection.login, passwordSha1: await passwordSha1Hex(password) },
    { timeoutMs: LOGIN_TIMEOUT_MS },
  );
  if (result.ok) return result.expiresAtMs === undefined ? { ok: true, sessionId: result.sessionId } : result;
  if (result.reason === 'refused') {
    // A refused password is a failed reconnect too: seven of them shut the connection until the cooldown or a rotation.
    await countReconnectFailure(deps, { connection, failedSession: undefined, statusCode: result.status, correlationId });
    return { ok: false, reason: 'login-refused', status: result.status };
  }
  return result.status === undefined
    ? { ok: false, reason: 'upstream-failed' }
    : { ok: false, reason: 'upstream-failed', status: result.status };
}

/** The cached session if it is readable and belongs to this connection and credential version. */
export function readSession(raw: string, connection: SyrveConnection): SessionRecord | undefined {
  const record = decodeSession(raw);
  if (record === undefined) return undefined;
  const matches =
    record.connectionId === connection.connectionId &&
    record.organizationId === connection.organizationId &&
    record.credentialVersion === connection.credentialVersion;
  return matches ? record : undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
