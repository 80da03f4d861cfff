// The services of this test run (redis-server, scratch database from the global setup) behind the local emulators,
// named in an APP_ENV=test environment that any runtime (Node, workerd, Lambda) can be given.
import { inject } from 'vitest';
import { startServices, type Services } from '../../local/stack/services.ts';
import { createTeardown } from '../../local/stack/teardown.ts';
import {
  TEST_INDEX_HASH_KEY,
  TEST_JWT_SECRET,
  TEST_PASSKEY_ORIGIN,
  TEST_PASSKEY_RP_ID,
  TEST_SECRETS_KEYS,
  TEST_WEBHOOK_SECRET,
} from './fixtures.ts';

export interface LocalServices extends Services {
  databaseUrl: string;
  close(): Promise<void>;
}

export async function startLocalServices(
  options: { redisUrl?: string; databaseUrl?: string; separateRevocationProxy?: boolean } = {},
): Promise<LocalServices> {
  const teardown = createTeardown();
  const databaseUrl = options.databaseUrl ?? inject('databaseUrl');
  // The cluster run (vitest project `cluster`) fronts a 3-master Redis Cluster; a file giving its own Redis is not in it.
  const redisCluster = options.redisUrl === undefined && inject('redisCluster');
  try {
    const services = await startServices(
      {
        redisUrl: options.redisUrl ?? inject('redisUrl'),
        redisCluster,
        databaseUrl,
        ...(options.separateRevocationProxy === true ? { separateRevocationProxy: true } : {}),
        // The `lag` run (test/setup/replica-lag.ts) lags the run's Redis; a test's own Redis stays without a replica.
        replicaLagMs: options.redisUrl === undefined ? inject('replicaLagMs') : 0,
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
        PASSKEY_RP_ID: TEST_PASSKEY_RP_ID,
        PASSKEY_ORIGINS: TEST_PASSKEY_ORIGIN,
        ...services.env,
      },
      close: async () => {
        await teardown.run();
        // On a cluster, a command or script that reached two slots is a bug in our keys, whether or not a test noticed.
        const slotErrors = [services.redisProxy, services.revocationProxy].flatMap((proxy) => proxy?.stats.slotErrors ?? []);
        if (slotErrors.length > 0) throw new Error(`Redis Cluster slotting errors:\n${slotErrors.join('\n')}`);
      },
    };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}
