// The run lock that keeps two runs of the scheduled function from overlapping: taken with SET PX, released by its owner only.
import { bytesToHex, randomBytes } from '../crypto/index.ts';
import { defineScript, runScript } from '../redis/index.ts';
import { deleteIfEquals } from '../runtime/compare-and-delete.ts';
import type { Deps } from '../deps.ts';

/**
 * KEYS[1] run lock (registry row `cronRunLock`)
 * ARGV[1] owner (128 random bits, hex), ARGV[2] TTL ms
 * Returns {1} when the lock is the caller's (taken now, or already: a retried call that landed), {0, PTTL ms} when
 * another run holds it (a held lock found without a TTL gets this run's TTL, so it cannot block every run forever). Safe to run twice, hence on the `retrySafe` client; a plain SET NX retried after it landed
 * would read its own lock as someone else's and skip the run.
 */
export const TAKE_RUN_LOCK = defineScript({
  name: 'cron.take-run-lock',
  keys: ['lock'],
  args: ['owner', 'ttlMs'],
  source: `
local lock_key = KEYS[1]
local owner = ARGV[1]
local ttl_ms = tonumber(ARGV[2])
local holder = redis.call('GET', lock_key)
if holder == owner then return {1} end
if holder then
  local left = redis.call('PTTL', lock_key)
  if left < 0 then
    -- A lock without a TTL (written by hand, or PERSISTed) would stop every run for good: it gets one run's worth.
    redis.call('EXPIRE', lock_key, math.ceil(ttl_ms / 1000))
    left = redis.call('PTTL', lock_key)
  end
  return {0, left}
end
redis.call('SET', lock_key, owner, 'PX', ttl_ms)
return {1}
`,
});

export type RunLock = { taken: true; owner: string } | { taken: false; msLeft: number };

/** Throws RedisUnavailableError when Redis cannot answer; the caller decides (the run does not start). */
export async function takeRunLock(deps: Deps, ttlMs: number): Promise<RunLock> {
  const owner = bytesToHex(randomBytes(16));
  const reply = await runScript(deps.redis.retrySafe, TAKE_RUN_LOCK, {
    keys: { lock: deps.keys.cronRunLock() },
    args: { owner, ttlMs: Math.ceil(ttlMs) },
  });
  const [status, pttl] = Array.isArray(reply) ? reply : [];
  if (status === 1) return { taken: true, owner };
  return { taken: false, msLeft: typeof pttl === 'number' ? pttl : -1 };
}

/** True when the lock was still this run's and is gone now; false when it had expired (the run outlived its TTL). */
export async function releaseRunLock(deps: Deps, owner: string): Promise<boolean> {
  return deleteIfEquals(deps, deps.keys.cronRunLock(), owner);
}
