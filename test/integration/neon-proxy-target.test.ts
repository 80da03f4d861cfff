// The local Neon proxy reaches its one configured PostgreSQL and nothing else: no browser page, no other port, no redirecting parameter.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { startNeonProxy, type NeonProxy } from '../../local/emulators/neon/index.ts';
import { startBystander, type Bystander } from '../support/bystander.ts';

const databaseUrl = inject('databaseUrl');
const target = new URL(databaseUrl);

/** A TCP listener standing in for "something else on this machine" (a dev redis-server, another database). */
let proxy: NeonProxy;
let socketDir: string;
let sameHost: Bystander;
let otherLoopback: Bystander;
let unixSocket: Bystander;

beforeAll(async () => {
  proxy = await startNeonProxy({ databaseUrl });
  sameHost = await startBystander({ host: '127.0.0.1' });
  otherLoopback = await startBystander({ host: '127.0.0.2' });
  socketDir = mkdtempSync(join(tmpdir(), 'neon-proxy-socket-'));
  // libpq's unix-socket naming: <folder>/.s.PGSQL.<port>
  unixSocket = await startBystander({ path: join(socketDir, `.s.PGSQL.${target.port || '5432'}`) });
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all([sameHost?.close(), otherLoopback?.close(), unixSocket?.close()]);
  rmSync(socketDir, { recursive: true, force: true });
});

function expectNoBystanderReached(): void {
  expect({ sameHost: sameHost.accepted, otherLoopback: otherLoopback.accepted, unixSocket: unixSocket.accepted }).toEqual({
    sameHost: 0,
    otherLoopback: 0,
    unixSocket: 0,
  });
}

/** Opens the tunnel as a raw WebSocket client and reports the HTTP status of the upgrade (101 when it opened). */
function upgradeStatus(address: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise<number>((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${proxy.port}/v1?address=${address}`, { headers });
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('open', () => {
      socket.terminate();
      resolve(101);
    });
    socket.on('error', () => undefined);
  });
}

function targetAddress(): string {
  return `${target.hostname}:${target.port || '5432'}`;
}

describe('WebSocket tunnel', () => {
  it('opens to the configured PostgreSQL when no Origin is sent (the driver on Node sends none)', async () => {
    expect(await upgradeStatus(targetAddress())).toBe(101);
  });

  it('refuses with 403 every upgrade that carries an Origin header, as every browser sends', async () => {
    for (const origin of ['https://evil.example', 'http://127.0.0.1:8787', 'null']) {
      expect({ origin, status: await upgradeStatus(targetAddress(), { Origin: origin }) }).toEqual({ origin, status: 403 });
    }
  });

  it('refuses any other loopback port or address before connecting to it', async () => {
    for (const address of [`127.0.0.1:${sameHost.port}`, `127.0.0.2:${otherLoopback.port}`, `localhost:${sameHost.port}`]) {
      expect({ address, status: await upgradeStatus(address) }).toEqual({ address, status: 403 });
    }
    expectNoBystanderReached();
  });
});

interface SqlAnswer {
  status: number;
  body: { message?: string };
}

async function postSql(connectionString: string, headers: Record<string, string> = {}): Promise<SqlAnswer> {
  const response = await fetch(`${proxy.url}/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'neon-connection-string': connectionString, ...headers },
    body: JSON.stringify({ query: 'SELECT 1 AS one', params: [] }),
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: (await response.json()) as { message?: string } };
}

function withParameters(parameters: Record<string, string>): string {
  const url = new URL(databaseUrl);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url.toString();
}

describe('SQL over HTTP', () => {
  it('answers for the configured PostgreSQL, harmless parameters included', async () => {
    expect(await postSql(databaseUrl)).toMatchObject({ status: 200 });
    expect(await postSql(withParameters({ application_name: 'neon-proxy-test', sslmode: 'disable' }))).toMatchObject({ status: 200 });
  });

  it('refuses with 403 a request that carries an Origin header (a browser page, even behind a rebound name)', async () => {
    expect(await postSql(databaseUrl, { origin: 'http://evil.example:8787' })).toMatchObject({ status: 403 });
  });

  it('refuses with 400 a ?host= that points at another address or a unix-socket folder, before connecting', async () => {
    const redirects: Array<Record<string, string>> = [
      { host: '127.0.0.2', port: String(otherLoopback.port) },
      { host: '127.0.0.1', port: String(sameHost.port) },
      { host: socketDir },
      { port: String(sameHost.port) },
      { hostaddr: '127.0.0.2' },
    ];
    for (const parameters of redirects) {
      const answer = await postSql(withParameters(parameters));
      expect({ parameters, status: answer.status }).toEqual({ parameters, status: 400 });
    }
    expectNoBystanderReached();
  });

  it('refuses with 400 parameters that make the client read local files', async () => {
    const file = join(socketDir, 'not-a-key.pem');
    writeFileSync(file, 'not a key\n');
    for (const name of ['sslkey', 'sslcert', 'sslrootcert', 'sslcrl', 'passfile', 'service']) {
      const answer = await postSql(withParameters({ [name]: file }));
      expect({ name, status: answer.status }).toEqual({ name, status: 400 });
    }
  });

  it('refuses another host or port in the URL itself, even on loopback, before connecting', async () => {
    for (const [host, port] of [
      ['127.0.0.2', otherLoopback.port],
      ['127.0.0.1', sameHost.port],
    ] as const) {
      const url = new URL(databaseUrl);
      url.hostname = host;
      url.port = String(port);
      const answer = await postSql(url.toString());
      expect({ host, port, status: answer.status }).toEqual({ host, port, status: 403 });
    }
    const socketUrl = `socket:${encodeURI(socketDir)}?db=test`;
    expect((await postSql(socketUrl)).status).toBe(400);
    expectNoBystanderReached();
  });
});

describe('listening', () => {
  it('refuses to listen anywhere but loopback, so no other machine can reach it', async () => {
    for (const host of ['0.0.0.0', '::']) {
      await expect(startNeonProxy({ databaseUrl, host })).rejects.toThrow(/loopback addresses only/);
    }
  });
});
