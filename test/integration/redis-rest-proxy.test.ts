// The Upstash REST proxy against a real Redis, driven by the unmodified @upstash/redis client and by raw fetch.
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRedisRestProxy, type RedisRestProxy } from '../../local/emulators/upstash/index.ts';
import { startRedisServer } from '../../local/processes/redis-server.ts';

let proxy: RedisRestProxy;
let raw: Redis;
let typed: Redis;

beforeAll(async () => {
  proxy = await startRedisRestProxy({ redisUrl: inject('redisUrl') });
  raw = new Redis({ url: proxy.url, token: proxy.token, automaticDeserialization: false });
  typed = new Redis({ url: proxy.url, token: proxy.token });
});

afterAll(async () => {
  await proxy?.close();
});

function key(label: string): string {
  return `proxy-test:${label}:${randomUUID()}`;
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

interface RawAnswer {
  status: number;
  text: string;
  json: unknown;
}

async function post(
  target: RedisRestProxy,
  path: '' | '/pipeline' | '/multi-exec',
  body: unknown,
  options: { base64?: boolean; token?: string | null; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  const token = options.token === undefined ? target.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.base64 === true) headers['Upstash-Encoding'] = 'base64';
  const response = await fetch(`${target.url}${path}`, { method: 'POST', headers, body: options.rawBody ?? JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as unknown };
}

describe('single commands', () => {
  it('round-trips SET and GET through the unmodified client', async () => {
    const k = key('roundtrip');
    expect(await raw.set(k, 'hello world ✓')).toBe('OK');
    expect(await raw.get(k)).toBe('hello world ✓');
    await typed.set(k, { nested: [1, 2], ok: true });
    expect(await typed.get(k)).toEqual({ nested: [1, 2], ok: true });
  });

  it('answers a null reply as {"result":null}, with and without base64', async () => {
    const k = key('missing');
    for (const base64 of [false, true]) {
      const answer = await post(proxy, '', ['get', k], { base64 });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('{"result":null}');
    }
    expect(await raw.get(k)).toBeNull();
  });

  it('base64-encodes strings at every nesting depth only when asked, leaving integers alone', async () => {
    const k = key('hash');
    await raw.hset(k, { a: '1', b: 'two' });
    const plainHash = await post(proxy, '', ['hgetall', k]);
    expect(plainHash.json).toEqual({ result: ['a', '1', 'b', 'two'] });
    const encodedHash = await post(proxy, '', ['hgetall', k], { base64: true });
    expect(encodedHash.json).toEqual({ result: [b64('a'), b64('1'), b64('b'), b64('two')] });

    const script = "return {'a',{'b',1,{'c'}},7}";
    expect((await post(proxy, '', ['eval', script, 0])).json).toEqual({ result: ['a', ['b', 1, ['c']], 7] });
    expect((await post(proxy, '', ['eval', script, 0], { base64: true })).json).toEqual({
      result: [b64('a'), [b64('b'), 1, [b64('c')]], 7],
    });
    expect(await typed.hgetall(k)).toEqual({ a: 1, b: 'two' });
  });

  it('encodes status replies such as OK and PONG', async () => {
    const k = key('status');
    expect((await post(proxy, '', ['set', k, 'v'], { base64: true })).json).toEqual({ result: b64('OK') });
    expect((await post(proxy, '', ['ping'], { base64: true })).json).toEqual({ result: b64('PONG') });
    expect((await post(proxy, '', ['ping'])).json).toEqual({ result: 'PONG' });
    expect(await raw.ping()).toBe('PONG');
  });

  it('keeps binary values byte-exact (0x00-0xff written by Lua, read back raw)', async () => {
    const k = key('binary');
    const script =
      "local t = {} for i = 0, 255 do t[#t + 1] = string.char(i) end redis.call('SET', KEYS[1], table.concat(t)) return redis.call('GET', KEYS[1])";
    const expected = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const written = await post(proxy, '', ['eval', script, 1, k], { base64: true });
    expect(Buffer.from((written.json as { result: string }).result, 'base64').equals(expected)).toBe(true);
    const read = await post(proxy, '', ['get', k], { base64: true });
    expect(Buffer.from((read.json as { result: string }).result, 'base64').equals(expected)).toBe(true);
    expect(await raw.strlen(k)).toBe(256);
  });

  it('converts numbers with String(n) and booleans to "true"/"false"', async () => {
    const k = key('numbers');
    await raw.set(k, 1000000);
    expect(await raw.get(k)).toBe('1000000');
    await post(proxy, '', ['set', k, 1.5]);
    expect(await raw.get(k)).toBe('1.5');
    await post(proxy, '', ['set', k, true]);
    expect(await raw.get(k)).toBe('true');
    await raw.set(k, 'x', { ex: 100 });
    const ttl = await raw.ttl(k);
    expect(ttl).toBeGreaterThan(90);
    expect(ttl).toBeLessThanOrEqual(100);
  });

  it('answers Redis errors as 400 {"error"} and accepts the upstash-sync-token header', async () => {
    const answer = await post(proxy, '', ['incr', key('x'), 'extra'], { headers: { 'upstash-sync-token': 'abc' } });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: expect.stringContaining('wrong number of arguments') });
    const ok = await post(proxy, '', ['ping'], { headers: { 'upstash-sync-token': '' } });
    expect(ok.status).toBe(200);
  });
});

describe('pipelines and transactions', () => {
  it('returns one entry per pipelined command, with a failing command inline', async () => {
    const k = key('pipe');
    const answer = await post(proxy, '/pipeline', [
      ['set', k, 'text'],
      ['incr', k],
      ['get', k],
      ['get', key('none')],
    ]);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([
      { result: 'OK' },
      { error: 'ERR value is not an integer or out of range' },
      { result: 'text' },
      { result: null },
    ]);
    const results = await raw.pipeline().set(k, 'again').incr(k).get(k).exec({ keepErrors: true });
    expect(results).toHaveLength(3);
    expect(results[0]?.result).toBe('OK');
    expect(results[1]?.error).toMatch(/not an integer/);
    expect(results[2]?.result).toBe('again');
  });

  it('runs multi-exec atomically and many concurrently without nesting MULTI', async () => {
    const k = key('counter');
    const runs = await Promise.allSettled(Array.from({ length: 20 }, () => raw.multi().incr(k).incr(k).exec()));
    const failures = runs.filter((run) => run.status === 'rejected').map((run) => String((run as PromiseRejectedResult).reason));
    expect(failures).toEqual([]);
    for (const run of runs) {
      const [first, second] = (run as PromiseFulfilledResult<[number, number]>).value;
      // Atomic: no other transaction's INCR lands between this one's two.
      expect(second).toBe(first + 1);
    }
    expect(await raw.get(k)).toBe('40');
  });

  it('rejects a whole transaction with a queueing error and applies none of it', async () => {
    const k = key('execabort');
    const answer = await post(proxy, '/multi-exec', [['set', k, 'v'], ['incr']]);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: expect.stringContaining('EXECABORT') });
    expect(await raw.get(k)).toBeNull();
    const runtime = await post(
      proxy,
      '/multi-exec',
      [
        ['set', k, 'v'],
        ['incr', k],
        ['get', k],
      ],
      { base64: true },
    );
    expect(runtime.status).toBe(200);
    expect(runtime.json).toEqual([{ result: b64('OK') }, { error: expect.stringContaining('not an integer') }, { result: b64('v') }]);
  });
});

describe('scripts', () => {
  it('answers an unknown SHA with NOSCRIPT', async () => {
    const answer = await post(proxy, '', ['evalsha', 'f'.repeat(40), 0]);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'NOSCRIPT No matching script. Please use EVAL.' });
    await expect(raw.evalsha('e'.repeat(40), [], [])).rejects.toThrow(/NOSCRIPT/);
  });

  it("serves createScript().exec() through the client's NOSCRIPT fallback, then by SHA", async () => {
    const k = key('script');
    const script = raw.createScript<number>(`-- ${randomUUID()}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`);
    proxy.stats.reset();
    expect(await script.exec([k], ['5'])).toBe(5);
    expect(proxy.stats.requests).toBe(2); // EVALSHA answered NOSCRIPT, then EVAL
    proxy.stats.reset();
    expect(await script.exec([k], ['5'])).toBe(10);
    expect(proxy.stats.requests).toBe(1);
  });

  it('runs scripts flagged allow-key-locking, mapping the client SHA to the rewritten one', async () => {
    const k = key('locking');
    const text = `#!lua flags=allow-key-locking\n-- ${randomUUID()}\nreturn redis.call('INCR', KEYS[1])`;
    const clientSha = createHash('sha1').update(text).digest('hex');
    const unknown = await post(proxy, '', ['evalsha', clientSha, 1, k]);
    expect(unknown.json).toEqual({ error: 'NOSCRIPT No matching script. Please use EVAL.' });
    const script = raw.createScript<number>(text);
    expect(await script.exec([k], [])).toBe(1);
    proxy.stats.reset();
    expect(await script.exec([k], [])).toBe(2);
    expect(proxy.stats.requests).toBe(1);
    expect(await raw.scriptLoad(text)).toBe(clientSha);
    expect(await raw.scriptExists(clientSha)).toEqual([1]);
  });
  it('keeps the other shebang flags when it strips allow-key-locking', async () => {
    const k = key('readonly-script');
    await raw.set(k, 'kept');
    const read = `#!lua flags=no-writes,allow-key-locking\nreturn redis.call('GET', KEYS[1])`;
    expect((await post(proxy, '', ['eval', read, 1, k])).json).toEqual({ result: 'kept' });
    const write = `#!lua flags=allow-key-locking,no-writes\nreturn redis.call('SET', KEYS[1], 'changed')`;
    const refused = await post(proxy, '', ['eval', write, 1, k]);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ error: expect.stringMatching(/not allowed from read-only scripts/i) });
    expect(await raw.get(k)).toBe('kept');
  });
});

describe('refusals and bad requests', () => {
  it('answers a wrong or missing token with 401 WRONGPASS', async () => {
    for (const token of ['wrong-token', null, '']) {
      const answer = await post(proxy, '', ['ping'], { token });
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ error: 'WRONGPASS invalid or missing auth token' });
    }
    const intruder = new Redis({ url: proxy.url, token: 'not-the-token', automaticDeserialization: false });
    await expect(intruder.get(key('x'))).rejects.toThrow(/WRONGPASS/);
  });

  it('answers malformed bodies with 400 {"error"}', async () => {
    const cases: Array<{ path: '' | '/pipeline' | '/multi-exec'; body: string }> = [
      { path: '', body: '{not json' },
      { path: '', body: '[]' },
      { path: '', body: '{"command":"get"}' },
      { path: '', body: JSON.stringify(['set', 'k', { a: 1 }]) },
      { path: '', body: JSON.stringify(['set', 'k', ['v']]) },
      { path: '/pipeline', body: '[]' },
      { path: '/pipeline', body: JSON.stringify([['get', 'k'], 'get']) },
      { path: '/pipeline', body: JSON.stringify([['get', 'k'], []]) },
      { path: '/multi-exec', body: JSON.stringify([['set', 'k', { a: 1 }]]) },
    ];
    for (const { path, body } of cases) {
      const answer = await post(proxy, path, undefined, { rawBody: body });
      expect({ path, body, status: answer.status }).toEqual({ path, body, status: 400 });
      expect(answer.json).toEqual({ error: expect.any(String) });
    }
  });

  it('refuses blocking and connection-state commands with a clear 400', async () => {
    const blocking = await post(proxy, '', ['blpop', key('list'), 0]);
    expect(blocking.status).toBe(400);
    expect(blocking.json).toEqual({ error: expect.stringContaining('blocking') });
    const select = await post(proxy, '', ['select', 1]);
    expect(select.status).toBe(400);
    expect(select.json).toEqual({ error: expect.stringContaining('connection state') });
    const nested = await post(proxy, '/multi-exec', [['multi'], ['set', key('m'), 'v']]);
    expect(nested.status).toBe(400);
    // The shared connection still answers in the same database afterwards.
    const k = key('after-refusal');
    await raw.set(k, 'still here');
    expect(await raw.get(k)).toBe('still here');
  });
});

describe('stats', () => {
  it('counts one request per round trip and every command inside it', async () => {
    const k = key('stats');
    proxy.stats.reset();
    await raw.pipeline().set(k, '1').incr(k).get(k).exec();
    expect({ requests: proxy.stats.requests, commands: proxy.stats.commands }).toEqual({ requests: 1, commands: 3 });
    await post(proxy, '', ['get', k], { token: 'wrong' });
    await post(proxy, '', undefined, { rawBody: '{bad' });
    expect({ requests: proxy.stats.requests, commands: proxy.stats.commands }).toEqual({ requests: 3, commands: 3 });
    await raw.multi().incr(k).incr(k).exec();
    expect({ requests: proxy.stats.requests, commands: proxy.stats.commands }).toEqual({ requests: 4, commands: 5 });
  });
});

describe('faults', () => {
  let faulty: RedisRestProxy;
  let client: Redis;

  beforeAll(async () => {
    faulty = await startRedisRestProxy({ redisUrl: inject('redisUrl') });
    client = new Redis({ url: faulty.url, token: faulty.token, automaticDeserialization: false, retry: false });
  });

  afterAll(async () => {
    await faulty?.close();
  });

  it('refuse: the client gets a network error until the fault is cleared', async () => {
    const k = key('refuse');
    await client.set(k, 'v'); // opens a keep-alive socket that the fault must cut too
    faulty.faults.set({ refuse: true });
    try {
      await expect(client.get(k)).rejects.toThrow();
      await expect(fetch(faulty.url, { method: 'POST', body: '["ping"]' })).rejects.toThrow();
    } finally {
      faulty.faults.clear();
    }
    expect(await client.get(k)).toBe('v');
  });

  it('delayMs: every request is held that long', async () => {
    const k = key('delay');
    faulty.faults.set({ delayMs: 300 });
    try {
      const started = performance.now();
      await client.set(k, 'v');
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      faulty.faults.clear();
    }
    const started = performance.now();
    expect(await client.get(k)).toBe('v');
    expect(performance.now() - started).toBeLessThan(290);
  });

  it('failCommands: the named commands fail, inline in a pipeline, and the rest work', async () => {
    const k = key('fail');
    await client.set(k, 'v');
    faulty.faults.set({ failCommands: ['exists', 'evalsha'] });
    try {
      await expect(client.exists(k)).rejects.toThrow(/ERR injected fault/);
      expect(await client.get(k)).toBe('v');
      const results = await client.pipeline().get(k).exists(k).strlen(k).exec({ keepErrors: true });
      expect(results.map((entry) => entry.error ?? entry.result)).toEqual(['v', 'ERR injected fault', 1]);
      await expect(client.createScript(`return '${randomUUID()}'`).exec([], [])).rejects.toThrow(/ERR injected fault/);
      const transaction = await post(faulty, '/multi-exec', [
        ['set', k, 'changed'],
        ['exists', k],
      ]);
      expect(transaction).toMatchObject({ status: 400, json: { error: 'ERR injected fault' } });
      expect(await client.get(k)).toBe('v');
    } finally {
      faulty.faults.clear();
    }
    expect(await client.exists(k)).toBe(1);
  });

  it('failArgsContaining: only the commands naming a matching argument fail, the other items of the pipeline run', async () => {
    const hit = key('fail-arg-hit');
    const miss = key('fail-arg-miss');
    faulty.faults.set({ failArgsContaining: ['fail-arg-hit'] });
    try {
      const results = await client.pipeline().set(miss, '1', { ex: 60 }).set(hit, '1', { ex: 60 }).get(miss).exec({ keepErrors: true });
      expect(results.map((entry) => entry.error ?? entry.result)).toEqual(['OK', 'ERR injected fault', '1']);
    } finally {
      faulty.faults.clear();
    }
    expect(await client.exists(hit)).toBe(0);
    expect(await client.exists(miss)).toBe(1);
  });
});

describe('Redis outage', () => {
  it('answers 503 quickly while Redis is down and recovers when it is back', async () => {
    let redis = await startRedisServer();
    const own = await startRedisRestProxy({ redisUrl: redis.url });
    try {
      const k = key('outage');
      expect((await post(own, '', ['set', k, 'v'])).status).toBe(200);
      await redis.stop();
      const started = performance.now();
      const single = await post(own, '', ['get', k]);
      const transaction = await post(own, '/multi-exec', [['get', k]]);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(single).toMatchObject({ status: 503, json: { error: expect.any(String) } });
      expect(transaction).toMatchObject({ status: 503, json: { error: expect.any(String) } });

      redis = await startRedisServer({ port: redis.port });
      const deadline = Date.now() + 5_000;
      let answer = await post(own, '', ['set', k, 'back']);
      while (answer.status !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await post(own, '', ['set', k, 'back']);
      }
      expect(answer.status).toBe(200);
      expect((await post(own, '/multi-exec', [['get', k]])).json).toEqual([{ result: 'back' }]);
    } finally {
      await own.close();
      await redis.stop();
    }
  });
});
