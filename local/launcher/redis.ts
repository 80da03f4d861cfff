// Gives the functions an Upstash REST endpoint: the one configured, else our proxy in front of REDIS_URL, a dev redis-server or the embedded engine.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startEmbeddedRedis } from '../processes/embedded-redis.ts';
import { hasRedisServer, REDIS_INSTALL_HINT, startRedisServer } from '../processes/redis-server.ts';
import { frontRedis } from '../stack/services.ts';
import type { Teardown } from '../stack/teardown.ts';
import { displayPath } from './data-dir.ts';
import { redisPassword } from './redis-password.ts';
import { replicaLagMs } from './replica-lag.ts';

export interface ProvidedRedis {
  /** For UPSTASH_REDIS_REST_URL / UPSTASH_REDIS_REST_TOKEN. */
  url: string;
  token: string;
  description: string;
  /**
   * With RUNSTATE_REPLICA_LAG_MS, the denylist's own proxy, without a replica (REVOCATION_REDIS_REST_URL/TOKEN): the
   * revocation store must be regional (docs/deploy.md).
   */
  revocation?: { url: string; token: string };
}

export async function provideRedis(
  env: Record<string, string | undefined>,
  dataDir: string,
  stack: Teardown,
  log: (line: string) => void,
): Promise<ProvidedRedis> {
  const restUrl = env.UPSTASH_REDIS_REST_URL;
  const lagMs = replicaLagMs(env);
  if (lagMs > 0 && restUrl !== undefined && restUrl !== '') {
    throw new Error("RUNSTATE_REPLICA_LAG_MS needs npm start's own REST proxy; unset UPSTASH_REDIS_REST_URL or the lag");
  }
  if (restUrl !== undefined && restUrl !== '') {
    // Used as given; loadConfig reports a missing token.
    return {
      url: restUrl,
      token: env.UPSTASH_REDIS_REST_TOKEN ?? '',
      description: `${originOf(restUrl)} (UPSTASH_REDIS_REST_URL, used directly)`,
    };
  }
  let redisUrl = env.REDIS_URL;
  let behind: string;
  if (redisUrl !== undefined && redisUrl !== '') {
    behind = `Redis at ${originOf(redisUrl)} (REDIS_URL)`;
  } else {
    const dir = join(dataDir, 'redis');
    // Its AOF (or the embedded engine's snapshot) holds runtime state (hashed tokens, ids): the folder stays private.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The replica is a redis-server too: the embedded engine cannot be one.
    if (lagMs > 0 && !hasRedisServer()) throw new Error(`RUNSTATE_REPLICA_LAG_MS needs a redis-server: ${REDIS_INSTALL_HINT}`);
    const server = hasRedisServer() ? await devRedisServer(dir, stack, log) : await embeddedRedis(dir, stack, log);
    redisUrl = server.url;
    behind = server.description;
  }
  if (lagMs === 0) {
    const proxy = await frontRedis(redisUrl, stack);
    return { url: proxy.url, token: proxy.token, description: `${behind}, behind the REST proxy ${proxy.url}` };
  }
  log(`starting a redis-server replica that applies every write ${lagMs} ms late (RUNSTATE_REPLICA_LAG_MS)`);
  const proxy = await frontRedis(redisUrl, stack, 'Redis REST proxy', false, lagMs);
  const denylist = await frontRedis(redisUrl, stack, 'revocation REST proxy');
  return {
    url: proxy.url,
    token: proxy.token,
    revocation: { url: denylist.url, token: denylist.token },
    description:
      `${behind}, behind the REST proxy ${proxy.url}, whose reads come from a replica ${lagMs} ms behind ` +
      `(RUNSTATE_REPLICA_LAG_MS); the denylist through ${denylist.url}, no replica`,
  };
}

async function devRedisServer(dir: string, stack: Teardown, log: (line: string) => void): Promise<{ url: string; description: string }> {
  log('starting redis-server (AOF and RDB on)');
  // Only the proxy knows the password, so a page or a process that finds the port still cannot use Redis.
  const server = await startRedisServer({ dir, persistence: true, password: redisPassword(dir) });
  stack.add('redis-server', server.stop);
  // Like the tests' Redis, it has the commands newer than 6.0 renamed away (local/processes/redis-ceiling.ts).
  return {
    url: server.url,
    description: `redis-server on 127.0.0.1:${server.port}, AOF + RDB in ${displayPath(dir)}, commands newer than Redis 6.0 disabled`,
  };
}

/** Where `<dir>/embedded-snapshot.json` keeps the embedded engine's keyspace between starts. */
export const EMBEDDED_SNAPSHOT_FILE = 'embedded-snapshot.json';

/** No redis-server on PATH: the in-process engine, its keyspace restored from and saved to the data folder. */
async function embeddedRedis(dir: string, stack: Teardown, log: (line: string) => void): Promise<{ url: string; description: string }> {
  const snapshotFile = join(dir, EMBEDDED_SNAPSHOT_FILE);
  log('no redis-server on PATH: starting the embedded Redis engine (js-redis-server, in this process)');
  // The same password file as a redis-server would use: only the proxy knows it.
  const server = await startEmbeddedRedis({ password: redisPassword(dir), snapshotFile, log });
  stack.add('embedded Redis', server.stop);
  if (server.restored !== undefined) {
    const expired = server.restored.skipped > 0 ? ` (${server.restored.skipped} expired while it was stopped)` : '';
    log(`embedded Redis: restored ${server.restored.keys} keys from ${displayPath(snapshotFile)}${expired}`);
  }
  return {
    url: server.url,
    description:
      `${server.engine}, embedded in this process on 127.0.0.1:${server.port} (no redis-server on PATH); keyspace with TTLs ` +
      `saved to ${displayPath(snapshotFile)} on stop and every 5 s after a change, restored on start`,
  };
}

/** scheme://host:port only: a URL's user, password and path stay out of the terminal. */
export function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return '(unparsable URL)';
  }
}
