// Five vitest projects: `unit` needs no services; `integration`, `workers`, `lambda` and `browser` (the console in
// headless Chromium) each get a throwaway redis-server and a fresh PostgreSQL database from the global setup, which
// fails (never skips) when one is missing.
import { defineConfig } from 'vitest/config';

const withServices = ['test/setup/global.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Integration files each start their own proxies; two cores, so keep parallelism modest.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], globalSetup: withServices } },
      { extends: true, test: { name: 'workers', include: ['test/workers/**/*.test.ts'], globalSetup: withServices } },
      { extends: true, test: { name: 'lambda', include: ['test/lambda/**/*.test.ts'], globalSetup: withServices } },
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], globalSetup: withServices } },
    ],
  },
});
