// A small pool of dedicated Redis connections, one per running transaction, because MULTI on a shared one nests.
import type { Redis } from 'ioredis';
import { cutConnection, RedisUnavailableError } from './redis-connection.ts';

export interface TransactionPool {
  acquire(): Promise<Redis>;
  /** `reusable` false disposes the connection (it may still be inside MULTI or broken). */
  release(connection: Redis, reusable: boolean): void;
  /** Cuts every connection; a caller still waiting for one fails with `reason`. */
  close(reason?: string): void;
}

export function createTransactionPool(open: () => Promise<Redis>, maxSize = 8): TransactionPool {
  const everyConnection: Set<Redis> = new Set();
  const idle: Redis[] = [];
  const waiters: Array<{ resolve(connection: Redis): void; reject(error: Error): void }> = [];
  let size = 0;
  let closed = false;
  let closedReason = 'the proxy is closing';

  async function openCounted(): Promise<Redis> {
    size += 1;
    try {
      const connection = await open();
      if (closed) connection.disconnect();
      else everyConnection.add(connection);
      return connection;
    } catch (error) {
      size -= 1;
      throw error instanceof RedisUnavailableError ? error : new RedisUnavailableError((error as Error).message);
    }
  }

  function dispose(connection: Redis): void {
    size -= 1;
    everyConnection.delete(connection);
    connection.disconnect();
  }

  return {
    async acquire() {
      if (closed) throw new RedisUnavailableError(closedReason);
      for (let connection = idle.pop(); connection !== undefined; connection = idle.pop()) {
        if (connection.status === 'ready') return connection;
        dispose(connection);
      }
      if (size < maxSize) return openCounted();
      return new Promise<Redis>((resolve, reject) => waiters.push({ resolve, reject }));
    },
    release(connection, reusable) {
      if (!reusable || closed) dispose(connection);
      const waiter = closed ? undefined : waiters.shift();
      if (waiter === undefined) {
        if (reusable && !closed) idle.push(connection);
        return;
      }
      if (reusable) waiter.resolve(connection);
      else openCounted().then(waiter.resolve, waiter.reject);
    },
    close(reason = closedReason) {
      closed = true;
      closedReason = reason;
      idle.length = 0;
      // Connections still inside a transaction are cut too; their callers answer 503.
      for (const connection of everyConnection) cutConnection(connection);
      everyConnection.clear();
      for (const waiter of waiters.splice(0)) waiter.reject(new RedisUnavailableError(reason));
    },
  };
}
