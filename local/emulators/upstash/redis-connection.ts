// Opens ioredis connections set up for proxying and sends raw commands whose replies stay Buffers.
import { Cluster, Command, Redis } from 'ioredis';
import { redactUrl } from '../../processes/redact-url.ts';

/** The proxy could not reach Redis (as opposed to Redis answering with an error reply). */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

export async function openRedisConnection(redisUrl: string): Promise<Redis> {
  const connection = new Redis(redisUrl, {
    lazyConnect: true,
    // Fail fast while Redis is down instead of queueing, so callers see the outage at once.
    enableOfflineQueue: false,
    // A reconnect must never run a command a second time behind the client's back.
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(attempt * 50, 500),
  });
  // Failures surface per command; without a listener ioredis prints every reconnect attempt.
  let lastError: Error | undefined;
  connection.on('error', (error: Error) => (lastError = error));
  try {
    await connection.connect();
  } catch (error) {
    connection.disconnect();
    // connect() itself only says "Connection is closed."; the socket error says why.
    const reason = (lastError ?? (error as Error)).message;
    throw new RedisUnavailableError(`could not connect to Redis at ${redactUrl(redisUrl)}: ${reason}`);
  }
  return connection;
}

/**
 * Closes a connection so that no reply arrives on it any more: a command in flight fails ("Connection is closed.")
 * instead of being answered later. `disconnect()` alone only half-closes the socket, and Redis still replies to what it
 * had read.
 */
export function cutConnection(connection: Redis): void {
  connection.disconnect();
  (connection.stream as Redis['stream'] | undefined)?.destroy();
}

/**
 * A client for the Redis Cluster that `seedUrl` (one node) belongs to: it learns the slot map, routes each command to
 * the master of its key's slot and follows MOVED and ASK. The seed's password, if any, is used for every node.
 */
export async function openRedisCluster(seedUrl: string): Promise<Cluster> {
  const seed = new URL(seedUrl);
  const password = seed.password === '' ? undefined : decodeURIComponent(seed.password);
  const cluster = new Cluster([{ host: seed.hostname, port: Number(seed.port || 6379) }], {
    lazyConnect: true,
    enableOfflineQueue: false,
    scaleReads: 'master',
    redisOptions: { autoResendUnfulfilledCommands: false, ...(password === undefined ? {} : { password }) },
  });
  let lastError: Error | undefined;
  cluster.on('error', (error: Error) => (lastError = error));
  try {
    await cluster.connect();
  } catch (error) {
    cluster.disconnect();
    const reason = (lastError ?? (error as Error)).message;
    throw new RedisUnavailableError(`could not connect to the Redis Cluster at ${redactUrl(seedUrl)}: ${reason}`);
  }
  return cluster;
}

/** Sends one command; bulk and status replies come back as Buffers so binary values survive. */
export function sendRaw(connection: Redis | Cluster, name: string, args: string[]): Promise<unknown> {
  // Upper case, because ioredis keys its reply transformers by lowercase name (it would turn HGETALL into an object).
  const command = new Command(name.toUpperCase(), args, { replyEncoding: null });
  connection.sendCommand(command);
  return command.promise as Promise<unknown>;
}
