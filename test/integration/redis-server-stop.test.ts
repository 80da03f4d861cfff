// A redis-server we started always stops, even when its final save fails because its folder is gone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isPortFree } from '../../local/processes/port.ts';
import { startRedisServer } from '../../local/processes/redis-server.ts';

it('stops a persistent redis-server whose data folder was deleted under it (Redis refuses SIGTERM then)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'runstate-redis-stop-'));
  const server = await startRedisServer({ dir, persistence: true });
  // Redis may be writing its append-only files while they go: a retry removes what appeared meanwhile.
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
  const started = Date.now();
  await server.stop();
  // The grace period, then SIGKILL: bounded, where it used to wait forever.
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(await isPortFree(server.port)).toBe(true);
}, 25_000);
