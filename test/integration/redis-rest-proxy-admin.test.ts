// The REST proxy refuses commands that reconfigure or stop Redis or reach other hosts, as Upstash refuses a command, unless allowAdmin.
import { randomUUID } from 'node:crypto';
import { Redis as Upstash } from '@upstash/redis';
import { Redis } from 'ioredis';
import { startBystander, type Bystander } from '../support/bystander.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisRestProxy, type RedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { startRedisServer, type RedisServerHandle } from '../../local/processes/redis-server.ts';

// A private redis-server: before the fix these commands really ran, and SHUTDOWN or REPLICAOF must not hit the shared one.
let redis: RedisServerHandle;
let direct: Redis;
let proxy: RedisRestProxy;
let bystander: Bystander;

beforeAll(async () => {
  redis = await startRedisServer();
  direct = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  await direct.connect();
  proxy = await startRedisRestProxy({ redisUrl: redis.url });
  // "Another host": a listener on a second loopback address that counts who reaches it.
  bystander = await startBystander({ host: '127.0.0.2' });
});

afterAll(async () => {
  direct?.disconnect();
  await proxy?.close();
  await redis?.stop();
  await bystander?.close();
});

async function post(
  target: RedisRestProxy,
  path: '' | '/pipeline' | '/multi-exec',
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${target.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as unknown };
}

const refused = (command: string) => ({
  status: 400,
  json: { error: expect.stringMatching(new RegExp(`^NOPERM this user has no permissions to run the '${command}' command`)) as unknown },
});

const ADMIN_COMMANDS: Array<{ body: Array<string | number>; name: string }> = [
  { body: ['config', 'get', 'dir'], name: 'config' },
  { body: ['CONFIG', 'SET', 'dir', '/tmp'], name: 'config' },
  { body: ['config', 'get', 'requirepass'], name: 'config' },
  { body: ['debug', 'sleep', '0'], name: 'debug' },
  { body: ['module', 'list'], name: 'module' },
  { body: ['acl', 'setuser', 'intruder', 'on', '>pw', '+@all'], name: 'acl|setuser' },
  { body: ['acl', 'deluser', 'default'], name: 'acl|deluser' },
  { body: ['acl', 'list'], name: 'acl|list' },
  { body: ['client', 'kill', 'id', '1'], name: 'client|kill' },
  { body: ['client', 'pause', '10000'], name: 'client|pause' },
  { body: ['cluster', 'meet', '127.0.0.2', 7000], name: 'cluster|meet' },
  { body: ['failover'], name: 'failover' },
  { body: ['migrate', '127.0.0.2', 0, 'k', 0, 1000], name: 'migrate' },
  { body: ['slaveof', '127.0.0.2', 0], name: 'slaveof' },
  { body: ['replicaof', '127.0.0.2', 0], name: 'replicaof' },
  // Last: before the fix it stopped the server.
  { body: ['shutdown', 'nosave'], name: 'shutdown' },
];

describe('admin commands', () => {
  it('are refused one by one with 400 and the NOPERM shape, and none of them runs', async () => {
    const migrated = `admin:${randomUUID()}`;
    await direct.set(migrated, 'stays');
    const dirBefore = await direct.config('GET', 'dir');
    for (const command of ADMIN_COMMANDS) {
      const body = command.body.map((part) => (part === 0 ? bystander.port : part === 'k' ? migrated : part));
      const answer = await post(proxy, '', body);
      expect({ body: command.body, ...answer }).toEqual({ body: command.body, ...refused(command.name) });
    }
    expect(await direct.ping()).toBe('PONG');
    expect(await direct.config('GET', 'dir')).toEqual(dirBefore);
    expect(await direct.get(migrated)).toBe('stays');
    expect((await direct.info('replication')).includes('role:master')).toBe(true);
    expect(await direct.acl('USERS')).toEqual(['default']);
    expect(bystander.accepted).toBe(0);
  });

  it('fail inline in a pipeline while the rest runs, and abort a whole transaction', async () => {
    const k = `admin:${randomUUID()}`;
    const pipeline = await post(proxy, '/pipeline', [
      ['set', k, 'v'],
      ['config', 'set', 'dir', '/tmp'],
      ['get', k],
    ]);
    expect(pipeline).toEqual({ status: 200, json: [{ result: 'OK' }, refused('config').json, { result: 'v' }] });
    const transaction = await post(proxy, '/multi-exec', [
      ['set', k, 'changed'],
      ['config', 'set', 'dir', '/tmp'],
    ]);
    expect(transaction).toEqual(refused('config'));
    expect(await direct.get(k)).toBe('v');
  });

  it('are matched in any letter case, and scripts still run through the unmodified client', async () => {
    expect(await post(proxy, '', ['CoNfIg', 'GeT', 'dir'])).toEqual(refused('config'));
    expect(await post(proxy, '', ['AcL', 'SetUser', 'intruder'])).toEqual(refused('acl|setuser'));
    const client = new Upstash({ url: proxy.url, token: proxy.token, automaticDeserialization: false });
    await expect(client.eval("return 'ok'", [], [])).resolves.toBe('ok');
  });

  it('keep harmless server commands working: INFO, SAVE, LATENCY, SLOWLOG, ACL WHOAMI, CLIENT LIST, FLUSHDB is data', async () => {
    for (const body of [
      ['info', 'server'],
      ['save'],
      ['latency', 'latest'],
      ['slowlog', 'len'],
      ['acl', 'whoami'],
      ['client', 'list'],
      ['dbsize'],
    ]) {
      const answer = await post(proxy, '', body);
      expect({ body, status: answer.status }).toEqual({ body, status: 200 });
    }
  });

  it('are run by Redis itself from Lua only where Redis allows it: CONFIG, DEBUG, SHUTDOWN, ACL are refused inside scripts', async () => {
    for (const call of ["'CONFIG','GET','dir'", "'DEBUG','SLEEP','0'", "'SHUTDOWN','NOSAVE'", "'ACL','SETUSER','intruder'"]) {
      const answer = await post(proxy, '', ['eval', `return redis.call(${call})`, 0]);
      expect({ call, ...answer }).toEqual({ call, status: 400, json: { error: expect.stringContaining('not allowed from script') } });
    }
    expect(await direct.ping()).toBe('PONG');
  });
});

describe('allowAdmin', () => {
  it('passes the admin commands through when the proxy was started with it', async () => {
    const admin = await startRedisRestProxy({ redisUrl: redis.url, allowAdmin: true });
    try {
      const answer = await post(admin, '', ['config', 'get', 'maxmemory-policy']);
      expect(answer).toEqual({ status: 200, json: { result: ['maxmemory-policy', expect.any(String)] } });
      expect((await post(admin, '', ['acl', 'list'])).status).toBe(200);
    } finally {
      await admin.close();
    }
  });
});

describe('listening', () => {
  it('refuses to listen anywhere but loopback, before it opens any connection', async () => {
    for (const host of ['0.0.0.0', '::']) {
      await expect(startRedisRestProxy({ redisUrl: redis.url, host })).rejects.toThrow(/loopback addresses only/);
    }
  });
});
