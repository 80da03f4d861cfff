// Starts the Upstash REST proxy and the Neon proxy in this process and names them in a dev/test environment for any runtime.
import { inject } from 'vitest';
import { startRedisRestProxy, type RedisRestProxy } from '../../local/redis-rest-proxy/index.ts';
import { startNeonProxy, type NeonProxy } from '../../local/neon-proxy/index.ts';
import { TEST_INDEX_HASH_KEY, TEST_JWT_SECRET } from './fixtures.ts';

export interface LocalServices {
  redisProxy: RedisRestProxy;
  neonProxy: NeonProxy;
  databaseUrl: string;
  /** APP_ENV=test bindings / process environment pointing the app at both proxies. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startLocalServices(options: { redisUrl?: string } = {}): Promise<LocalServices> {
  const databaseUrl = inject('databaseUrl');
  const redisProxy = await startRedisRestProxy({ redisUrl: options.redisUrl ?? inject('redisUrl') });
  const neonProxy = await startNeonProxy().catch(async (error: unknown) => {
    await redisProxy.close();
    throw error;
  });
  const env = {
    APP_ENV: 'test',
    UPSTASH_REDIS_REST_URL: redisProxy.url,
    UPSTASH_REDIS_REST_TOKEN: redisProxy.token,
    DATABASE_URL: databaseUrl,
    NEON_LOCAL_PROXY_URL: neonProxy.url,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    INDEX_HASH_KEY: TEST_INDEX_HASH_KEY,
  };
  return {
    redisProxy,
    neonProxy,
    databaseUrl,
    env,
    async close() {
      await redisProxy.close();
      await neonProxy.close();
    },
  };
}
