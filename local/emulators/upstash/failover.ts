// A failover in place: the proxy promotes a replica of its Redis and moves onto it, keeping its address, token and
// client sockets, as a managed Redis's endpoint survives its primary's replacement.
import type { Redis } from 'ioredis';
import { createTransactionPool } from './connection-pool.ts';
import type { ExecutionContext } from './execute.ts';
import { cutConnection, openRedisConnection, sendRaw } from './redis-connection.ts';

export interface Failover {
  /** Resolves at once, or once the switch under way has ended; a request waits here so it reaches one side only. */
  settled(): Promise<void>;
  /**
   * Cuts the old primary's connections (a command in flight there fails: a 503, its outcome unknown), runs
   * `REPLICAOF NO ONE` on `replicaUrl` and sends every later request there. Requests arriving meanwhile wait for it.
   * On failure the proxy goes back to the old primary and the error is thrown.
   */
  promote(replicaUrl: string): Promise<void>;
}

export function createFailover(context: ExecutionContext, primaryUrl: string): Failover {
  let currentUrl = primaryUrl;
  let switching: Promise<void> | undefined;

  async function switchTo(replicaUrl: string): Promise<void> {
    // Reached before anything is cut: an unreachable replica leaves the proxy as it was.
    const next = await openRedisConnection(replicaUrl);
    // Cut first, promote after: the old primary serves nothing once the replica has stopped following it, so no write
    // is acknowledged there that the new primary will never have.
    cutConnection(context.shared as Redis);
    context.pool.close('the proxy moved to another Redis');
    try {
      await sendRaw(next, 'replicaof', ['no', 'one']);
    } catch (error) {
      next.disconnect();
      // The old primary back if it answers; if not, every request fails as it would have without the switch.
      moveTo(currentUrl, await openRedisConnection(currentUrl).catch(() => context.shared));
      throw error;
    }
    moveTo(replicaUrl, next);
  }

  function moveTo(url: string, shared: ExecutionContext['shared']): void {
    currentUrl = url;
    context.shared = shared;
    context.pool = createTransactionPool(() => openRedisConnection(url));
  }

  return {
    settled: () => switching ?? Promise.resolve(),
    promote(replicaUrl) {
      if (context.cluster !== undefined || context.replica !== undefined)
        return Promise.reject(new Error('promote() is for a proxy in front of one Redis, without a lagging replica'));
      if (switching !== undefined) return Promise.reject(new Error('a promotion is already under way'));
      const run = switchTo(replicaUrl);
      switching = run.then(
        () => undefined,
        () => undefined,
      );
      void switching.then(() => (switching = undefined));
      return run;
    },
  };
}
