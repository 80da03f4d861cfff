// `npm run cron -- --once` given a plain PostgreSQL URL on this machine and no NEON_LOCAL_PROXY_URL: the CLI puts the
// local Neon proxy in front for the run (ops/cron.ts), so every task reaches the database instead of failing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type TestStack } from '../support/stack.ts';
import { cronOnce } from '../support/cron-once.ts';

// A prefix of its own: the run lock is platform-wide, and other files on this Redis run the scheduled function too.
const KEY_PREFIX = 'cronplainpg';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ env: { KEY_PREFIX } });
});
afterAll(async () => {
  await stack?.close();
});

describe('npm run cron against a plain loopback PostgreSQL', () => {
  it('fronts it with the local Neon proxy: every task runs, none fails, exit 0', async () => {
    const stackEnv: Record<string, string> = stack.env;
    const { NEON_LOCAL_PROXY_URL: _proxy, ...env } = stackEnv;
    expect(new URL(env.DATABASE_URL!).hostname).toBe('127.0.0.1');
    const result = await cronOnce({ ...env, KEY_PREFIX });
    expect(result.stderr).toContain('reaching it through a local Neon proxy');
    expect(result.stderr).toMatch(/cron: \d+ tasks ran, 0 failed/);
    expect(result.stdout).not.toContain('DatabaseUnavailableError');
    expect(result.code).toBe(0);
    const runs = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; failed?: number })
      .filter((line) => line.event === 'cron_run');
    expect(runs).toEqual([expect.objectContaining({ failed: 0 })]);
  });
});
