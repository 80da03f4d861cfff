// The Syrve/iiko client against the fake upstream and a few tiny loopback servers: outcomes, deadlines, redirects, secrets.
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSyrve, type FakeSyrve } from '../../local/fakes/index.ts';
import { freePort } from '../../local/processes/free-port.ts';
import {
  createSyrveClient,
  passwordSha1Hex,
  type CallResult,
  type LoginResult,
  type SyrveStore,
  type SyrveTarget,
  type SyrveUpstream,
} from '../../lib/upstream/syrve/index.ts';
import { startBystander, type Bystander } from '../support/bystander.ts';

const LOGIN = 'admin & co=1';
const PASSWORD = 'canary-syrve-password-Ж7';

let fake: FakeSyrve;
let client: SyrveUpstream;
let passwordSha1: string;
const servers: Server[] = [];

async function startTinyServer(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function login(baseUrl = fake.url, timeoutMs = 2000): Promise<LoginResult> {
  const target: SyrveTarget = { baseUrl };
  return client.login(target, { login: LOGIN, passwordSha1 }, { timeoutMs });
}

async function sessionId(): Promise<string> {
  const result = await login();
  if (!result.ok) throw new Error(`login failed: ${result.reason}`);
  return result.sessionId;
}

beforeAll(async () => {
  fake = await startFakeSyrve({ accounts: { [LOGIN]: PASSWORD } });
  client = createSyrveClient({ appEnv: 'test', requestTimeoutMs: 2000 });
  passwordSha1 = await passwordSha1Hex(PASSWORD);
});

afterEach(() => {
  fake.setDelay(0);
  fake.forbidAlways(false);
  fake.forbidNext(0);
  fake.refuseLogins(false);
  fake.expireSessions();
  fake.resetStats();
});

afterAll(async () => {
  await fake?.close();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('login', () => {
  it('answers a session token for the right login and SHA-1, and takes a seat', async () => {
    const result = await login();
    expect(result).toEqual({ ok: true, sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(fake.stats()).toMatchObject({ logins: 1, failedLogins: 0, liveSessions: 1 });
  });

  it('sends the SHA-1 hex, not the password: the fake refuses the plain password', async () => {
    expect(passwordSha1).toBe(createHash('sha1').update(PASSWORD, 'utf8').digest('hex'));
    const plain = await client.login({ baseUrl: fake.url }, { login: LOGIN, passwordSha1: PASSWORD }, { timeoutMs: 2000 });
    expect(plain).toEqual({ ok: false, reason: 'refused', status: 401 });
  });

  it('is refused for a wrong password, an unknown login, or when the server refuses every login', async () => {
    const wrong = await client.login(
      { baseUrl: fake.url },
      { login: LOGIN, passwordSha1: await passwordSha1Hex('nope') },
      { timeoutMs: 2000 },
    );
    const unknown = await client.login({ baseUrl: fake.url }, { login: 'nobody', passwordSha1 }, { timeoutMs: 2000 });
    fake.refuseLogins(true);
    const refusedAll = await login();
    for (const result of [wrong, unknown, refusedAll]) expect(result).toEqual({ ok: false, reason: 'refused', status: 401 });
    expect(fake.stats()).toMatchObject({ logins: 0, failedLogins: 3, liveSessions: 0 });
  });

  it('takes a base URL pasted with /resto/ and a changed account', async () => {
    fake.setAccount('second', 'other-password');
    const result = await client.login(
      { baseUrl: `${fake.url}/resto/` },
      { login: 'second', passwordSha1: await passwordSha1Hex('other-password') },
      { timeoutMs: 2000 },
    );
    expect(result.ok).toBe(true);
  });

  it('is unavailable for a 5xx, an unusable token, an oversized body, or a closed port', async () => {
    const error = await startTinyServer((_req, res) => res.writeHead(503).end('busy'));
    const notToken = await startTinyServer((_req, res) => res.writeHead(200).end('<html><body>login page</body></html>'));
    const huge = await startTinyServer((_req, res) => res.writeHead(200).end('x'.repeat(64 * 1024)));
    const closed = `http://127.0.0.1:${await freePort()}`;
    expect(await login(error)).toEqual({ ok: false, reason: 'unavailable', status: 503 });
    expect(await login(notToken)).toEqual({ ok: false, reason: 'unavailable' });
    expect(await login(huge)).toEqual({ ok: false, reason: 'unavailable' });
    expect(await login(closed)).toEqual({ ok: false, reason: 'unavailable' });
  });
});

describe('listStores', () => {
  it('parses the XML, decoding entities; an empty code is null', async () => {
    const result = await client.listStores({ baseUrl: fake.url }, await sessionId());
    expect(result).toEqual({
      ok: true,
      value: [
        { id: '1b3ad7a2-38c5-4c1e-9d5e-4a2f0b6c1d01', code: '1', name: 'Main store' },
        { id: '1b3ad7a2-38c5-4c1e-9d5e-4a2f0b6c1d02', code: '2', name: 'Bar & Kitchen' },
        { id: '1b3ad7a2-38c5-4c1e-9d5e-4a2f0b6c1d03', code: null, name: 'Кухня <cold>' },
      ],
    });
    expect(fake.stats()).toMatchObject({ calls: 1, forbiddenAnswers: 0 });
  });

  it('is forbidden for a dead key, after expireSessions, on forbidNext and forbidAlways', async () => {
    expect(await client.listStores({ baseUrl: fake.url }, 'not-a-key')).toEqual({ ok: false, reason: 'forbidden' });

    const key = await sessionId();
    fake.forbidNext(1);
    expect(await client.listStores({ baseUrl: fake.url }, key)).toEqual({ ok: false, reason: 'forbidden' });
    expect((await client.listStores({ baseUrl: fake.url }, key)).ok).toBe(true);

    fake.forbidAlways(true);
    expect(await client.listStores({ baseUrl: fake.url }, key)).toEqual({ ok: false, reason: 'forbidden' });
    fake.forbidAlways(false);

    fake.expireSessions();
    expect(await client.listStores({ baseUrl: fake.url }, key)).toEqual({ ok: false, reason: 'forbidden' });
    expect(fake.stats()).toMatchObject({ calls: 5, forbiddenAnswers: 4, liveSessions: 0 });
  });

  it('treats 401 as forbidden too (some iiko versions answer it for a dead key)', async () => {
    const unauthorized = await startTinyServer((_req, res) => res.writeHead(401).end('Unauthorized'));
    expect(await client.listStores({ baseUrl: unauthorized }, 'k')).toEqual({ ok: false, reason: 'forbidden' });
  });

  it('fails on a 5xx, a body that is not the stores XML, or a body over 1 MiB', async () => {
    const error = await startTinyServer((_req, res) => res.writeHead(500).end('oops'));
    const html = await startTinyServer((_req, res) => res.writeHead(200).end('<html><body>maintenance'));
    const otherXml = await startTinyServer((_req, res) => res.writeHead(200).end('<error><message>no</message></error>'));
    const missingId = await startTinyServer((_req, res) =>
      res.writeHead(200).end('<corporateItemDtoes><corporateItemDto><name>x</name></corporateItemDto></corporateItemDtoes>'),
    );
    const doctypeEntity = await startTinyServer((_req, res) =>
      res
        .writeHead(200)
        .end(
          '<!DOCTYPE c [<!ENTITY x "lol">]><corporateItemDtoes><corporateItemDto><id>1</id><name>&x;</name></corporateItemDto></corporateItemDtoes>',
        ),
    );
    const row = '<corporateItemDto><id>1</id><code>1</code><name>padding padding padding</name></corporateItemDto>';
    const huge = await startTinyServer((_req, res) => {
      // Streamed without a content-length, so the cap is what stops it, not the header.
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.write('<corporateItemDtoes>');
      for (let i = 0; i < 12_000; i += 1) res.write(row);
      res.end('</corporateItemDtoes>');
    });
    expect(await client.listStores({ baseUrl: error }, 'k')).toEqual({ ok: false, reason: 'failed', status: 500 });
    for (const baseUrl of [html, otherXml, missingId, doctypeEntity, huge]) {
      expect(await client.listStores({ baseUrl }, 'k')).toEqual({ ok: false, reason: 'failed' });
    }
  });

  it('accepts an empty list', async () => {
    const empty = await startTinyServer((_req, res) => res.writeHead(200).end('<?xml version="1.0"?><corporateItemDtoes/>'));
    expect(await client.listStores({ baseUrl: empty }, 'k')).toEqual({ ok: true, value: [] });
  });
});

describe('deadlines', () => {
  it('login and listStores give up at their deadline when the upstream is slow', async () => {
    const key = await sessionId();
    fake.setDelay(5000);
    let started = Date.now();
    expect(await login(fake.url, 300)).toEqual({ ok: false, reason: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(1500);
    started = Date.now();
    expect(await client.listStores({ baseUrl: fake.url }, key, { timeoutMs: 300 })).toEqual({ ok: false, reason: 'failed' });
    expect(Date.now() - started).toBeLessThan(1500);
    started = Date.now();
    await client.logout({ baseUrl: fake.url }, key, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('the deadline covers the body too: headers sent, then nothing', async () => {
    const stalls = await startTinyServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('3f2504e0-');
    });
    const started = Date.now();
    expect(await login(stalls, 300)).toEqual({ ok: false, reason: 'unavailable' });
    expect(await client.listStores({ baseUrl: stalls }, 'k', { timeoutMs: 300 })).toEqual({ ok: false, reason: 'failed' });
    expect(Date.now() - started).toBeLessThan(2500);
  });
});

describe('redirects', () => {
  let bystander: Bystander;
  beforeAll(async () => {
    bystander = await startBystander({ host: '127.0.0.1' });
  });
  afterAll(async () => {
    await bystander?.close();
  });

  it('a 302 is a failure and its Location is never visited', async () => {
    const redirecting = await startTinyServer((req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${bystander.port}${req.url ?? '/'}` }).end();
    });
    expect(await login(redirecting)).toEqual({ ok: false, reason: 'unavailable', status: 302 });
    expect(await client.listStores({ baseUrl: redirecting }, 'k')).toEqual({ ok: false, reason: 'failed', status: 302 });
    await client.logout({ baseUrl: redirecting }, 'k');
    expect(bystander.accepted).toBe(0);
  });
});

describe('logout', () => {
  it('frees the seat', async () => {
    const key = await sessionId();
    expect(fake.stats().liveSessions).toBe(1);
    await client.logout({ baseUrl: fake.url }, key);
    expect(fake.stats()).toMatchObject({ logouts: 1, liveSessions: 0 });
    expect(await client.listStores({ baseUrl: fake.url }, key)).toEqual({ ok: false, reason: 'forbidden' });
  });

  it('never throws: closed port, refused base URL, error answer', async () => {
    const error = await startTinyServer((_req, res) => res.writeHead(500).end());
    for (const baseUrl of [`http://127.0.0.1:${await freePort()}`, 'https://169.254.169.254', error]) {
      await expect(client.logout({ baseUrl }, 'k', { timeoutMs: 500 })).resolves.toBeUndefined();
    }
  });

  it('sessions expire after sessionTtlMs', async () => {
    const shortLived = await startFakeSyrve({ accounts: { [LOGIN]: PASSWORD }, sessionTtlMs: 100 });
    try {
      const result = await login(shortLived.url);
      if (!result.ok) throw new Error('login failed');
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await client.listStores({ baseUrl: shortLived.url }, result.sessionId)).toEqual({ ok: false, reason: 'forbidden' });
      expect(shortLived.stats().liveSessions).toBe(0);
    } finally {
      await shortLived.close();
    }
  });
});

describe('canary: no secret in any result or error', () => {
  function encodings(secret: string): string[] {
    return [
      secret,
      secret.toUpperCase(),
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('base64url'),
      Buffer.from(secret).toString('hex'),
    ];
  }

  function leaks(text: string, secrets: string[]): string[] {
    return secrets.flatMap((secret) => encodings(secret)).filter((form) => text.includes(form));
  }

  it('results of every failure path carry no password, SHA-1, session id or URL', async () => {
    const key = await sessionId();
    const slow = await startTinyServer((req, res) => setTimeout(() => req.socket.destroyed || res.writeHead(200).end('late'), 1000));
    const redirecting = await startTinyServer((req, res) => res.writeHead(302, { location: `http://127.0.0.1:1${req.url ?? ''}` }).end());
    const closed = `http://127.0.0.1:${await freePort()}`;
    const outcomes: (LoginResult | CallResult<SyrveStore[]>)[] = [];
    for (const baseUrl of [fake.url, slow, redirecting, closed, 'https://169.254.169.254', 'https://user:pw@rms.example.com']) {
      outcomes.push(await client.login({ baseUrl }, { login: LOGIN, passwordSha1: await passwordSha1Hex('wrong') }, { timeoutMs: 300 }));
      outcomes.push(await client.login({ baseUrl }, { login: LOGIN, passwordSha1: PASSWORD }, { timeoutMs: 300 }));
      outcomes.push(await client.listStores({ baseUrl }, key, { timeoutMs: 300 }));
    }
    fake.forbidAlways(true);
    outcomes.push(await client.listStores({ baseUrl: fake.url }, key));
    fake.refuseLogins(true);
    outcomes.push(await login());
    const thrown: unknown[] = [];
    await client
      .login({ baseUrl: fake.url }, { login: LOGIN, passwordSha1 }, { timeoutMs: -1 })
      .catch((error: unknown) => thrown.push(error));
    expect(thrown).toHaveLength(1);

    const text = JSON.stringify(outcomes) + thrown.map((error) => `${String(error)} ${(error as Error).stack ?? ''}`).join('\n');
    expect(leaks(text, [PASSWORD, passwordSha1, key])).toEqual([]);
    expect(text).not.toMatch(/https?:\/\//);
    expect(text).not.toMatch(/[?&](pass|key|login)=/);
  });

  it('positive control: the search finds a secret where it is meant to be', async () => {
    const result = await login();
    if (!result.ok) throw new Error('login failed');
    expect(leaks(JSON.stringify(result), [result.sessionId])).toContain(result.sessionId);
    expect(leaks(`x${encodeURIComponent(PASSWORD)}x`, [PASSWORD])).not.toEqual([]);
  });
});

describe('the fake upstream is a dev tool, not a web server', () => {
  it('refuses browser requests (any Origin) and foreign Host names (DNS rebinding) before doing anything', async () => {
    fake.resetStats();
    const login = `${fake.url}/resto/api/auth?login=manager&pass=x`;
    expect((await fetch(login, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    // fetch will not send a Host of our choosing; node:http will, as a rebound browser would.
    const rebound = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(login, { headers: { host: 'evil.example' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
    expect(rebound).toBe(403);
    expect(fake.stats().failedLogins).toBe(0);
    // Positive control: the same request without them reaches the login.
    expect((await fetch(login)).status).toBe(401);
    expect(fake.stats().failedLogins).toBe(1);
  });
});
