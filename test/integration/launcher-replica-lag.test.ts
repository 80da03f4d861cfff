// npm start with RUNSTATE_REPLICA_LAG_MS: the main store reads from a lagging replica of its password-protected
// redis-server, the denylist gets a proxy of its own without one, and a bad value or an unusable setup is refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provideRedis, type ProvidedRedis } from '../../local/launcher/redis.ts';
import { createTeardown, type Teardown } from '../../local/stack/teardown.ts';

let work: string;
let stack: Teardown;
let provided: ProvidedRedis;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'launcher-lag-'));
  stack = createTeardown();
  provided = await provideRedis({ RUNSTATE_REPLICA_LAG_MS: '1500' }, work, stack, () => undefined);
});
afterAll(async () => {
  await stack?.run();
  rmSync(work, { recursive: true, force: true });
});

async function command(endpoint: { url: string; token: string }, body: string[], syncToken?: string) {
  const response = await fetch(endpoint.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${endpoint.token}`, ...(syncToken === undefined ? {} : { 'upstash-sync-token': syncToken }) },
    body: JSON.stringify(body),
  });
  return { json: (await response.json()) as { result?: unknown }, syncToken: response.headers.get('upstash-sync-token') ?? '' };
}

describe('npm start with RUNSTATE_REPLICA_LAG_MS', () => {
  it('reads the main store from a replica behind the primary, and the denylist from the primary', async () => {
    expect(provided.description).toContain('1500 ms behind');
    const revocation = provided.revocation;
    if (revocation === undefined) throw new Error('no separate denylist endpoint');
    const key = `test:launcher-lag:${randomUUID()}`;
    const write = await command(provided, ['SET', key, 'v', 'EX', '60']);
    expect(write.syncToken).toMatch(/^\d+$/);
    expect((await command(provided, ['GET', key])).json.result).toBeNull();
    expect((await command(revocation, ['GET', key])).json.result).toBe('v');
    // The writer's token: the replica answers once it has the write.
    expect((await command(provided, ['GET', key], write.syncToken)).json.result).toBe('v');
  });

  it('refuses a lag that is not a whole number of milliseconds, and one with an Upstash URL given', async () => {
    const none = createTeardown();
    await expect(provideRedis({ RUNSTATE_REPLICA_LAG_MS: 'soon' }, work, none, () => undefined)).rejects.toThrow(/RUNSTATE_REPLICA_LAG_MS/);
    await expect(
      provideRedis({ RUNSTATE_REPLICA_LAG_MS: '100', UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1' }, work, none, () => undefined),
    ).rejects.toThrow(/UPSTASH_REDIS_REST_URL/);
    await none.run();
  });
});
