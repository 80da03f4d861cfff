// The services of this test run (redis-server, scratch database from the global setup) behind the local emulators,
// named in an APP_ENV=test environment that any runtime (Node, workerd, Lambda) can be given.
import { inject } from 'vitest';
import { startServices, type Services } from '../../local/stack/services.ts';
import { createTeardown } from '../../local/stack/teardown.ts';
import { TEST_INDEX_HASH_KEY, TEST_JWT_SECRET, TEST_SECRETS_KEYS, TEST_WEBHOOK_SECRET } from './fixtures.ts';

export interface LocalServices extends Services {
  databaseUrl: string;
  close(): Promise<void>;
}

export async function startLocalServices(
  options: { redisUrl?: string; databaseUrl?: string; separateRevocationProxy?: boolean } = {},
): Promise<LocalServices> {
  const teardown = createTeardown();
  const databaseUrl = options.databaseUrl ?? inject('databaseUrl');
  try {
    const services = await startServices(
      {
        redisUrl: options.redisUrl ?? inject('redisUrl'),
        databaseUrl,
        ...(options.separateRevocationProxy === true ? { separateRevocationProxy: true } : {}),
      },
      teardown,
    );
    return {
      ...services,
      databaseUrl,
      env: {
        APP_ENV: 'test',
        AUTH_JWT_SECRET: TEST_JWT_SECRET,
        INDEX_HASH_KEY: TEST_INDEX_HASH_KEY,
        SECRETS_KEYS: TEST_SECRETS_KEYS,
        WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
        ...services.env,
      },
      close: async () => void (await teardown.run()),
    };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}
