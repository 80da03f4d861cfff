// The Node entries' store transport: the drivers' POSTs to a store's origin over node:http, answered as fetch would
// answer them; every other call still goes to fetch.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeStoreFetch } from '../../functions/entries/store-fetch.ts';
import type { Config } from '../../lib/config/index.ts';

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: unknown;
}

function listen(answer: (seen: Seen, response: http.ServerResponse) => void): Promise<{ url: string; seen: Seen[]; close(): void }> {
  const seen: Seen[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const one = { path: request.url ?? '', headers: request.headers, body, socket: request.socket };
      seen.push(one);
      answer(one, response);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, seen, close: () => server.close() });
    });
  });
}

const reply = (seen: Seen, response: http.ServerResponse) => {
  if (seen.path === '/hold') return; // never answers: the caller's signal has to end it
  const status = seen.path === '/bad' ? 400 : 200;
  response.writeHead(status, { 'content-type': 'application/json', 'upstash-sync-token': 'sync-7' });
  response.end(JSON.stringify({ result: seen.body }));
};

describe('routeStoreFetch', () => {
  let store: Awaited<ReturnType<typeof listen>>;
  let other: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    store = await listen(reply);
    other = await listen(reply);
    routeStoreFetch({
      redis: { url: store.url, token: 't' },
      revocationRedis: { url: store.url, token: 't' },
      databaseUrl: 'postgres://u@127.0.0.1:5432/test',
      neonLocalProxyUrl: store.url,
    } as unknown as Config);
  });
  afterAll(() => {
    store.close();
    other.close();
  });

  const post = (url: string, init: RequestInit = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer t' }, body: '["PING"]', ...init });

  it("answers a store's POST with its status, headers and body, over one kept-alive connection", async () => {
    const first = await post(`${store.url}/pipeline`, { keepalive: true, cache: undefined });
    const second = await post(`${store.url}/pipeline`);
    expect(first.ok).toBe(true);
    expect(first.status).toBe(200);
    expect(first.headers.get('Upstash-Sync-Token')).toBe('sync-7');
    expect(first.headers.get('absent')).toBeNull();
    expect(await first.json()).toEqual({ result: '["PING"]' });
    expect(await second.text()).toBe(JSON.stringify({ result: '["PING"]' }));
    const [a, b] = store.seen.slice(-2);
    // fetch sends sec-fetch-mode; the route sends only the driver's own headers, and the body's length.
    expect(a?.headers['sec-fetch-mode']).toBeUndefined();
    expect(a?.headers.authorization).toBe('Bearer t');
    expect(a?.headers['content-length']).toBe('8');
    expect(a?.socket).toBe(b?.socket);
  });

  it('answers a refusal as a response that is not ok', async () => {
    const response = await post(`${store.url}/bad`);
    expect(response.ok).toBe(false);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ result: '["PING"]' });
  });

  it("rejects with the signal's reason when the signal aborts, as fetch does", async () => {
    const controller = new AbortController();
    const pending = post(`${store.url}/hold`, { signal: controller.signal });
    const reason = new DOMException('the deadline passed', 'TimeoutError');
    await expect.poll(() => store.seen.some((one) => one.path === '/hold')).toBe(true);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const already = new AbortController();
    already.abort(reason);
    await expect(post(`${store.url}/pipeline`, { signal: already.signal })).rejects.toBe(reason);
  });

  it('rejects with a TypeError when the store cannot be reached, as fetch does', async () => {
    const closed = await listen(reply);
    closed.close();
    routeStoreFetch({
      redis: { url: closed.url, token: 't' },
      revocationRedis: { url: closed.url, token: 't' },
      databaseUrl: 'postgres://u@127.0.0.1:5432/test',
    } as unknown as Config);
    await expect(post(`${closed.url}/pipeline`)).rejects.toBeInstanceOf(TypeError);
  });

  it('leaves every other call to fetch: another origin, a GET, a Request', async () => {
    await post(`${other.url}/x`);
    await fetch(`${store.url}/get`);
    await fetch(new Request(`${store.url}/request`, { method: 'POST', body: 'x' }));
    expect(other.seen.at(-1)?.headers['sec-fetch-mode']).toBe('cors');
    expect(store.seen.find((one) => one.path === '/get')?.headers['sec-fetch-mode']).toBe('cors');
    expect(store.seen.find((one) => one.path === '/request')?.headers['sec-fetch-mode']).toBe('cors');
  });
});
