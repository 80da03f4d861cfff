// The Redis 6.0 ceiling at run time: the run's redis-server has every newer command renamed away, so a script or a
// call that uses one fails in the tests as it would on a managed Redis 6.0. A server started without the ceiling is the
// deliberate break: the same calls succeed there, so these tests would notice the ceiling missing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Redis as IORedis } from 'ioredis';
import { createRedisStore, defineScript, runScript, RedisDefectError } from '../../lib/redis/index.ts';
import { startRedisRestProxy, type RedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { ceilingCommandsFor, COMMANDS_NEWER_THAN_6_0, versionAtMost } from '../../local/processes/redis-ceiling.ts';
import { redisServerVersion, startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';

const GETDEL_PROBE = defineScript({
  name: 'ceiling-probe',
  keys: ['probe'],
  args: [],
  source: `local probe_key = KEYS[1]\n-- ${randomUUID()}\nreturn redis.call('GETDEL', probe_key)`,
});

const version = redisServerVersion() ?? '0.0.0';
const renamed = ceilingCommandsFor(version);

let ceiled: IORedis;
let unceiledServer: RedisServerHandle;
let unceiled: IORedis;
let ceiledProxy: RedisRestProxy;
let unceiledProxy: RedisRestProxy;

beforeAll(async () => {
  ceiled = new IORedis(inject('redisUrl'));
  unceiledServer = await startRedisServer({ ceiling: false });
  unceiled = new IORedis(unceiledServer.url);
  ceiledProxy = await startRedisRestProxy({ redisUrl: inject('redisUrl') });
  unceiledProxy = await startRedisRestProxy({ redisUrl: unceiledServer.url });
});
afterAll(async () => {
  await Promise.all([ceiledProxy.close(), unceiledProxy.close()]);
  await Promise.all([ceiled.quit(), unceiled.quit()]);
  await unceiledServer.stop();
});

const key = (): string => `ceiling-test:${randomUUID()}`;

async function commandInfo(redis: IORedis, name: string): Promise<unknown> {
  const [info] = (await redis.call('COMMAND', 'INFO', name)) as unknown[];
  return info;
}

describe('the run’s redis-server', () => {
  it('renames away every command newer than 6.0 that this server has', async () => {
    expect(renamed.length).toBeGreaterThan(0);
    for (const name of renamed) expect(await commandInfo(ceiled, name), name).toBeNull();
  });

  it('knows each of those commands when started without the ceiling (the list names real commands)', async () => {
    for (const name of renamed) expect(await commandInfo(unceiled, name), name).not.toBeNull();
  });

  it("lists every command this server's own COMMAND DOCS dates after 6.0", async () => {
    // COMMAND DOCS is itself 7.0; on an older server there is nothing newer to miss.
    if (!versionAtMost('7.0.0', version)) return;
    const docs = (await unceiled.call('COMMAND', 'DOCS')) as unknown[];
    const newer: string[] = [];
    for (let index = 0; index < docs.length; index += 2) {
      const name = String(docs[index]);
      const fields = docs[index + 1] as unknown[];
      const field = (label: string) => fields[fields.indexOf(label) + 1];
      // Module commands carry their module's version, not Redis's.
      if (fields.includes('module')) continue;
      if (!versionAtMost(String(field('since')), '6.0.99')) newer.push(name);
    }
    expect(newer.length).toBeGreaterThan(0);
    expect(newer.filter((name) => COMMANDS_NEWER_THAN_6_0[name] === undefined)).toEqual([]);
  });

  it('fails a direct GETDEL, and runs it without the ceiling', async () => {
    const k = key();
    await expect(ceiled.call('GETDEL', k)).rejects.toThrow(/unknown command/i);
    await unceiled.set(k, 'v', 'EX', 60);
    await expect(unceiled.call('GETDEL', k)).resolves.toBe('v');
  });

  it('fails EVAL of a script that calls GETDEL, and runs it without the ceiling', async () => {
    const k = key();
    await ceiled.set(k, 'v', 'EX', 60);
    await expect(ceiled.eval(GETDEL_PROBE.source, 1, k)).rejects.toThrow(/Unknown Redis command called from script/);
    expect(await ceiled.get(k)).toBe('v');
    await unceiled.set(k, 'v', 'EX', 60);
    await expect(unceiled.eval(GETDEL_PROBE.source, 1, k)).resolves.toBe('v');
  });

  it('still accepts options newer than 6.0 on old commands: those are held by the static checks, not here', async () => {
    // SET … GET is 6.2; rename-command cannot take an option away (test/unit/redis-ceiling.test.ts refuses it in code).
    const k = key();
    await expect(ceiled.call('SET', k, 'v', 'EX', '60', 'GET')).resolves.toBeNull();
  });
});

describe("the app's runScript path (EVALSHA, NOSCRIPT, EVAL through the REST proxy)", () => {
  it('fails a script that calls GETDEL on the test Redis', async () => {
    const store = createRedisStore({ url: ceiledProxy.url, token: ceiledProxy.token });
    const k = key();
    await store.atMostOnce.set(k, 'v', { ex: 60 });
    const run = runScript(store.atMostOnce, GETDEL_PROBE, { keys: { probe: k } });
    // A script calling a command the server lacks is a defect of ours (lib/redis/reply-class.ts), not an outage.
    await expect(run).rejects.toBeInstanceOf(RedisDefectError);
    const cause = await run.catch((error: RedisDefectError) => (error.cause as Error).message);
    expect(cause).toMatch(/Unknown Redis command called from script/);
    expect(await store.atMostOnce.get(k)).toBe('v');
  });

  it('runs the same script on a server without the ceiling (the deliberate break)', async () => {
    const store = createRedisStore({ url: unceiledProxy.url, token: unceiledProxy.token });
    const k = key();
    await store.atMostOnce.set(k, 'v', { ex: 60 });
    await expect(runScript(store.atMostOnce, GETDEL_PROBE, { keys: { probe: k } })).resolves.toBe('v');
  });
});
