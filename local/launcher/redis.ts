// Gives the functions an Upstash REST endpoint: the one configured, else our proxy in front of REDIS_URL or a dev redis-server.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hasRedisServer, REDIS_INSTALL_HINT, startRedisServer } from '../processes/redis-server.ts';
import { frontRedis } from '../stack/services.ts';
import type { Teardown } from '../stack/teardown.ts';
import { displayPath } from './data-dir.ts';
import { redisPassword } from './redis-password.ts';

export interface ProvidedRedis {
  /** For UPSTASH_REDIS_REST_URL / UPSTASH_REDIS_REST_TOKEN. */
  url: string;
  token: string;
  description: string;
}

export async function provideRedis(
  env: Record<string, string | undefined>,
  dataDir: string,
  stack: Teardown,
  log: (line: string) => void,
): Promise<ProvidedRedis> {
  const restUrl = env.UPSTASH_REDIS_REST_URL;
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
    if (!hasRedisServer()) throw new Error(REDIS_INSTALL_HINT);
    const dir = join(dataDir, 'redis');
    // Its AOF holds runtime state (hashed tokens, ids): the folder stays private.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    log('starting redis-server (AOF and RDB on)');
    // Only the proxy knows the password, so a page or a process that finds the port still cannot use Redis.
    const server = await startRedisServer({ dir, persistence: true, password: redisPassword(dir) });
    stack.add('redis-server', server.stop);
    redisUrl = server.url;
    // Like the tests' Redis, it has the commands newer than 6.0 renamed away (local/processes/redis-ceiling.ts).
    behind = `redis-server on 127.0.0.1:${server.port}, AOF + RDB in ${displayPath(dir)}, commands newer than Redis 6.0 disabled`;
  }
  const proxy = await frontRedis(redisUrl, stack);
  return { url: proxy.url, token: proxy.token, description: `${behind}, behind the REST proxy ${proxy.url}` };
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
