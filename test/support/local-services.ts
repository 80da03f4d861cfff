// Starts the Upstash REST proxy and the Neon proxy in this process and names them in a dev/test environment for any runtime.
import { inject } from 'vitest';
import { startRedisRestProxy, type RedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { startNeonProxy, type NeonProxy } from '../../local/emulators/neon/index.ts';
import { TEST_INDEX_HASH_KEY, TEST_JWT_SECRET } from './fixtures.ts';

export interface LocalServices {
  redisProxy: RedisRestProxy;
  /** Present with `separateRevocationProxy`: the denylist's own proxy, so faults on the main one leave auth working. */
  revocationProxy?: RedisRestProxy;
  neonProxy: NeonProxy;
  databaseUrl: string;
  /** APP_ENV=test bindings / process environment pointing the app at both proxies. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startLocalServices(options: { redisUrl?: string; separateRevocationProxy?: boolean } = {}): Promise<LocalServices> {
  const databaseUrl = inject('databaseUrl');
  const redisUrl = options.redisUrl ?? inject('redisUrl');
  const redisProxy = await startRedisRestProxy({ redisUrl });
  const revocationProxy = options.separateRevocationProxy === true ? await startRedisRestProxy({ redisUrl }) : undefined;
  const neonProxy = await startNeonProxy({ databaseUrl }).catch(async (error: unknown) => {
    await redisProxy.close();
    await revocationProxy?.close();
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
    ...(revocationProxy !== undefined
      ? { REVOCATION_REDIS_REST_URL: revocationProxy.url, REVOCATION_REDIS_REST_TOKEN: revocationProxy.token }
      : {}),
  };
  return {
    redisProxy,
    ...(revocationProxy !== undefined ? { revocationProxy } : {}),
    neonProxy,
    databaseUrl,
    env,
    async close() {
      await redisProxy.close();
      await revocationProxy?.close();
      await neonProxy.close();
    },
  };
}
