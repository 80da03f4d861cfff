// The only way keys:audit reaches Redis: pipelines of read-only commands from an allow-list, over RESP or Upstash REST.
import { Redis as IORedis } from 'ioredis';

/**
 * Everything the audit may send. SCAN walks, TYPE/PTTL classify, STRLEN caps a GET, ZRANGE reads a bounded page, and
 * INFO — its `memory` section only — says the store's eviction policy.
 */
export const READ_ONLY_COMMANDS = ['scan', 'type', 'pttl', 'strlen', 'get', 'zrange', 'info'] as const;
type ReadOnlyCommand = (typeof READ_ONLY_COMMANDS)[number];
export type ReadCommand = [ReadOnlyCommand, ...string[]];

export type Reply = { ok: true; value: unknown } | { ok: false; error: string };

export interface ReadOnlyRedis {
  /** One round trip; one reply per command, in order. Throws ConnectionError when the store cannot be reached. */
  pipeline(commands: ReadCommand[]): Promise<Reply[]>;
  close(): Promise<void>;
}

/** The store could not be reached or refused the credentials (exit 2), as opposed to a reply error. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
}

const ALLOWED = new Set<string>(READ_ONLY_COMMANDS);

/** Refuses anything off the allow-list at run time too: the types can be cast away, this cannot. */
export function assertReadOnly(commands: ReadonlyArray<readonly string[]>): void {
  for (const [name = '', ...args] of commands) {
    if (!ALLOWED.has(name.toLowerCase())) throw new Error(`keys:audit only reads; it refuses to send ${name.toUpperCase() || '(empty)'}`);
    // Other sections say more than the audit needs (`INFO clients` lists connected addresses, `INFO keyspace` sizes).
    if (name.toLowerCase() === 'info' && (args.length !== 1 || args[0]?.toLowerCase() !== 'memory'))
      throw new Error('keys:audit only reads; it sends INFO memory and no other section');
  }
}

function guarded(inner: ReadOnlyRedis): ReadOnlyRedis {
  return {
    pipeline(commands) {
      assertReadOnly(commands);
      return inner.pipeline(commands);
    },
    close: () => inner.close(),
  };
}

/** A plain Redis over RESP (`redis://` or `rediss://`). */
export async function connectResp(url: string): Promise<ReadOnlyRedis> {
  const redis = new IORedis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A dropped connection ends the audit (exit 2) rather than retrying behind the pacing's back.
    retryStrategy: () => null,
    connectTimeout: 5_000,
    // Its INFO would be the one command off the list (and a read-only ACL user may not run it).
    enableReadyCheck: false,
  });
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => (lastError = error));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new ConnectionError(`could not connect: ${(lastError ?? (error as Error)).message}`);
  }
  return guarded({
    async pipeline(commands) {
      let settled: Array<[Error | null, unknown]> | null;
      try {
        settled = await redis.pipeline(commands.map(([name, ...args]) => [name, ...args])).exec();
      } catch (error) {
        throw new ConnectionError(`Redis stopped answering: ${(error as Error).message}`);
      }
      if (settled === null) throw new ConnectionError('Redis stopped answering');
      return settled.map(([error, value]) => {
        if (error === null) return { ok: true, value };
        // A reply error (WRONGTYPE, NOPERM) is the command's; a closed connection is the audit's end.
        if (!/^[A-Z]+ /.test(error.message)) throw new ConnectionError(`Redis stopped answering: ${error.message}`);
        return { ok: false, error: error.message };
      });
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  });
}

/** An Upstash REST endpoint (or the local proxy): POST /pipeline with the bearer token; replies as plain JSON strings. */
export function connectRest(url: string, token: string): ReadOnlyRedis {
  const endpoint = `${url.replace(/\/+$/, '')}/pipeline`;
  return guarded({
    async pipeline(commands) {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(commands),
          redirect: 'error',
          signal: AbortSignal.timeout(10_000),
        });
      } catch (error) {
        throw new ConnectionError(`could not reach the REST endpoint: ${(error as Error).message}`);
      }
      // Only the status: a body could echo what was sent.
      if (response.status === 401 || response.status === 403)
        throw new ConnectionError(`the REST endpoint refused the token (${response.status})`);
      if (!response.ok) throw new ConnectionError(`the REST endpoint answered ${response.status}`);
      const body = (await response.json().catch(() => undefined)) as unknown;
      if (!Array.isArray(body) || body.length !== commands.length) throw new ConnectionError('the REST endpoint sent an unexpected body');
      return body.map((entry: unknown): Reply => {
        const item = entry as { result?: unknown; error?: unknown };
        if (typeof item?.error === 'string') return { ok: false, error: item.error };
        return { ok: true, value: item?.result ?? null };
      });
    },
    close: async () => undefined,
  });
}
