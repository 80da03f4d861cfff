// Deps whose stores are never reached: enough to build the app and generate its OpenAPI document from the route
// definitions alone, without services (the unit project runs where 127.0.0.1 has neither Redis nor PostgreSQL).
import { loadConfig } from '../../lib/config/index.ts';
import { createDeps } from '../../lib/create-deps.ts';
import type { Deps } from '../../lib/deps.ts';
import { TEST_INDEX_HASH_KEY, TEST_JWT_SECRET, TEST_PASSKEY_ORIGIN, TEST_PASSKEY_RP_ID } from './fixtures.ts';

export function offlineDeps(): Deps {
  return createDeps(
    loadConfig({
      APP_ENV: 'test',
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      INDEX_HASH_KEY: TEST_INDEX_HASH_KEY,
      UPSTASH_REDIS_REST_URL: 'https://main.upstash.example',
      UPSTASH_REDIS_REST_TOKEN: 'token',
      DATABASE_URL: 'postgres://app:pw@ep-x.neon.example/app',
      PASSKEY_RP_ID: TEST_PASSKEY_RP_ID,
      PASSKEY_ORIGINS: TEST_PASSKEY_ORIGIN,
    }),
  );
}
