// Builds the Upstash REST clients of one store, one per call kind, each with its own deadline and retry count.
import { Redis } from '@upstash/redis/cloudflare';
import type { RestEndpoint } from '../config/index.ts';
import { shareSyncToken } from './shared-sync-token.ts';

/**
 * Each client is named after what it promises about a retry, not after reads and writes:
 * check:      the fail-closed revocation read on every request — short deadline, one quick retry.
 * retrySafe:  idempotent commands and scripts (reads, list's pruning, the compensating remove and restore) —
 *             a retry that lands twice is harmless.
 * atMostOnce: scripts with effects that must not run twice — no retry, because a retried request may run a second
 *             time after the first already landed (a dropped keep-alive re-sends;
 *             docs/design/redis.md#the-upstash-client-as-our-code-relies-on-it).
 * throttle:   a throttle hit with no operation script to ride in (`throttle.hit`), and the tenant resolve script that counts
 *             its hit beside the cache read — both fail open, so a short deadline bounds what a sick Redis adds to each request, and no
 *             retry: a retried INCR could count twice, and the answer is not worth the wait.
 * A deadline covers all attempts of one call (the client takes the signal once per request).
 */
const CALL_POLICY = {
  check: { timeoutMs: 800, retries: 1 },
  retrySafe: { timeoutMs: 1_500, retries: 2 },
  atMostOnce: { timeoutMs: 2_000, retries: 0 },
  throttle: { timeoutMs: 500, retries: 0 },
} as const;

type CallKind = keyof typeof CALL_POLICY;

export type RedisStore = Record<CallKind, Redis>;

/**
 * `timeoutMs` replaces every kind's deadline. Only tests set it: one that judges the exact outcome of a crowd of calls
 * in one process on a busy machine, where a deadline missed for want of CPU would turn the outcome into the failure
 * path (a fail-open count, a 503) and the deadline is wall time, which a test cannot drive.
 */
export function createRedisStore(endpoint: RestEndpoint, options: { timeoutMs?: number } = {}): RedisStore {
  const client = (kind: CallKind) => {
    const { retries } = CALL_POLICY[kind];
    const timeoutMs = options.timeoutMs ?? CALL_POLICY[kind].timeoutMs;
    return new Redis({
      url: endpoint.url,
      token: endpoint.token,
      // Our codec reads raw strings and validates them; the default would turn "123" into 123.
      automaticDeserialization: false,
      // Every hot path is one explicit script or pipeline; batching would only add latency.
      enableAutoPipelining: false,
      enableTelemetry: false,
      // On a Global database reads go to a read region; the sync token orders this instance's reads after its
      // writes (docs/design/replicas.md). shareSyncToken makes it one token for all four kinds.
      readYourWrites: true,
      // A function, not a plain signal: an aborted plain signal becomes a fake success ("Aborted").
      signal: () => AbortSignal.timeout(timeoutMs),
      retry: { retries, backoff: (attempt) => 20 * (attempt + 1) },
    });
  };
  const store = { check: client('check'), retrySafe: client('retrySafe'), atMostOnce: client('atMostOnce'), throttle: client('throttle') };
  shareSyncToken(Object.values(store));
  return store;
}
