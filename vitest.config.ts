// One vitest run for every suite; the global setup starts a throwaway redis-server and a fresh PostgreSQL database.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Integration files each start their own proxies; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
