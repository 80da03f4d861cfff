// Starts a redis-server that replicates the proxy's Redis through a lagging link: the read region of a Global database.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { startRedisServer } from '../../../processes/redis-server.ts';
import { openRedisConnection, sendRaw } from '../redis-connection.ts';
import { startLaggingLink } from './lagging-link.ts';

export interface LaggingReplica {
  /** A connection to the replica, for the reads it serves and for its offset. */
  connection: Redis;
  /** Holds and releases the primary's stream (lagging-link.ts). */
  hold(): void;
  release(): void;
  stop(): Promise<void>;
}

// The first full sync goes through the link too; a primary with a large keyspace may take a while.
const FIRST_SYNC_DEADLINE_MS = 30_000;

export async function startLaggingReplica(primaryUrl: string, lagMs: number): Promise<LaggingReplica> {
  const url = new URL(primaryUrl);
  const link = await startLaggingLink({ host: url.hostname, port: Number(url.port || 6379) }, lagMs);
  // A copy of the data deserves the primary's protection: a password of its own, known only to this proxy.
  const server = await startRedisServer({ password: randomBytes(24).toString('base64url') }).catch(async (error: unknown) => {
    await link.close();
    throw error;
  });
  let connection: Redis | undefined;
  try {
    connection = await openRedisConnection(server.url);
    // The primary's password is handed over as a command, never in argv.
    if (url.password !== '') await sendRaw(connection, 'config', ['set', 'masterauth', decodeURIComponent(url.password)]);
    await sendRaw(connection, 'replicaof', ['127.0.0.1', String(link.port)]);
    await waitForLinkUp(connection);
  } catch (error) {
    connection?.disconnect();
    await server.stop();
    await link.close();
    throw error;
  }
  const replica = connection;
  return {
    connection: replica,
    hold: () => link.hold(),
    release: () => link.release(),
    async stop() {
      replica.disconnect();
      await server.stop();
      await link.close();
    },
  };
}

async function waitForLinkUp(replica: Redis): Promise<void> {
  const deadline = Date.now() + FIRST_SYNC_DEADLINE_MS;
  for (;;) {
    const info = String(await sendRaw(replica, 'info', ['replication']));
    if (/^master_link_status:up/m.test(info)) return;
    if (Date.now() > deadline) throw new Error('the lagging replica did not finish its first sync in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
