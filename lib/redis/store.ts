// Builds the Upstash REST clients of one store, one per call kind, each with its own deadline and retry count.
import { Redis } from '@upstash/redis/cloudflare';
import type { RestEndpoint } from '../config/index.ts';

/**
 * check: fail-closed reads on every request (revocation) — short deadline, one quick retry.
 * read:  idempotent reads and idempotent scripts — retries are harmless.
 * write: scripts with effects — no retry, because a retried request may run a second time
 *        after the first already landed (a dropped keep-alive re-sends; docs/design.md#the-upstash-client-as-our-code-relies-on-it).
 * A deadline covers all attempts of one call (the client takes the signal once per request).
 */
export const CALL_POLICY = {
  check: { timeoutMs: 800, retries: 1 },
  read: { timeoutMs: 1_500, retries: 2 },
  write: { timeoutMs: 2_000, retries: 0 },
} as const;

export type CallKind = keyof typeof CALL_POLICY;

export type RedisStore = Record<CallKind, Redis>;

export function createRedisStore(endpoint: RestEndpoint): RedisStore {
  const client = (kind: CallKind) => {
    const { timeoutMs, retries } = CALL_POLICY[kind];
    return new Redis({
      url: endpoint.url,
      token: endpoint.token,
      // Our codec reads raw strings and validates them; the default would turn "123" into 123.
      automaticDeserialization: false,
      // Every hot path is one explicit script or pipeline; batching would only add latency.
      enableAutoPipelining: false,
      enableTelemetry: false,
      readYourWrites: false,
      // A function, not a plain signal: an aborted plain signal becomes a fake success ("Aborted").
      signal: () => AbortSignal.timeout(timeoutMs),
      retry: { retries, backoff: (attempt) => 20 * (attempt + 1) },
    });
  };
  return { check: client('check'), read: client('read'), write: client('write') };
}
