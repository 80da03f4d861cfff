// Access tokens signed with the stored keys (ACCESS_TOKEN_SIGNING=ES256): made on first use in test, ES256 with a kid,
// published at /.well-known/jwks.json (current and next, public members, cacheable) and verifiable outside runstate;
// rotations refuse no live token; unknown kids cost PostgreSQL at most one read per gap; an isolate that starts with
// PostgreSQL down refuses until it can read; no private key anywhere but its sealed row.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT, decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config/index.ts';
import { parseSecretsKeys } from '../../lib/config/secrets-keys.ts';
import { openSecret } from '../../lib/crypto/secret-box.ts';
import { signingKeyBinding } from '../../lib/auth/signing-keys/generate-signing-key.ts';
import { rotationMinIntervalMs, SIGNING_KEYS_RETRY_GAP_MS } from '../../lib/auth/signing-keys/key-ring.ts';
import { systemClock } from '../../lib/deps.ts';
import { rotateSigningKeys } from '../../lib/auth/signing-keys/rotate-signing-keys.ts';
import { readSigningKeys } from '../../lib/auth/signing-keys/stored-keys.ts';
import { signAccessTokenFor } from '../../lib/auth/tokens/access-token.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { composeApp } from '../../local/stack/app.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { pgClientDb } from '../../ops/pg-client-db.ts';
import { setPassword, TEST_SECRETS_KEYS } from '../support/fixtures.ts';
import { startStack, type TestStack } from '../support/stack.ts';

const ISSUER = 'https://auth.runstate.test/';
const AUDIENCE = 'runstate-api';
const MIN_INTERVAL_MS = rotationMinIntervalMs(900);
const secretsKeys = parseSecretsKeys(TEST_SECRETS_KEYS);

let database: ScratchDatabase;
let stack: TestStack;
let server: Server;
let jwksUrl: URL;

beforeAll(async () => {
  // A database of its own: the keys are one per deployment, and these tests rotate them.
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  stack = await startStack({
    databaseUrl: database.url,
    env: { ACCESS_TOKEN_SIGNING: 'ES256', AUTH_TOKEN_ISSUER: ISSUER, AUTH_TOKEN_AUDIENCE: AUDIENCE },
  });
  // The app on a loopback port, as a verifier elsewhere would fetch the document.
  server = createServer((req, res) => {
    void stack.request('GET', req.url ?? '/').then(async (response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(await response.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`);
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await stack?.close();
  await database?.drop();
});

async function signIn(): Promise<{ accessToken: string; organizationId: string; userId: string; email: string }> {
  const org = await stack.seedOrganization();
  const password = `pw-${uuidv7()}`;
  await setPassword(stack.db, org.adminId, password);
  const login = await stack.request('POST', '/auth/login', {
    body: { organizationId: org.organizationId, email: org.adminEmail, password },
  });
  expect(login.status).toBe(200);
  const { accessToken } = (await login.json()) as { accessToken: string };
  return { accessToken, organizationId: org.organizationId, userId: org.adminId, email: org.adminEmail };
}

const invites = (organizationId: string, token: string) => stack.request('GET', `/orgs/${organizationId}/invites`, { token });
const keyRows = () => readSigningKeys(pgClientDb(stack.db));

describe('the stored signing keys', () => {
  it('sign ES256 tokens with a kid, made on first use and audited; the JWKS publishes current and next, public only, cacheable', async () => {
    const { accessToken, organizationId } = await signIn();
    const rows = await keyRows();
    const current = rows.find((row) => row.state === 'current')!;
    const next = rows.find((row) => row.state === 'next')!;
    expect(rows).toHaveLength(2);
    expect(decodeProtectedHeader(accessToken)).toEqual({ alg: 'ES256', kid: current.kid, typ: 'JWT' });
    expect((await invites(organizationId, accessToken)).status).toBe(200);

    const response = await stack.request('GET', '/.well-known/jwks.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const jwks = (await response.json()) as { keys: Record<string, string>[] };
    expect(jwks.keys.map((key) => key.kid)).toEqual([current.kid, next.kid]);
    for (const key of jwks.keys) expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });

    const audit = await stack.db.query("SELECT correlation_id, details FROM audit_events WHERE action = 'signing_keys.rotated'");
    expect(audit.rows).toEqual([
      {
        correlation_id: 'signing-keys-first-use',
        details: { alg: 'ES256', created: true, currentKid: current.kid, nextKid: next.kid, previousKid: null, retiredKid: null },
      },
    ]);
  });

  it('verify outside runstate: jose.createRemoteJWKSet against the loopback server takes our token', async () => {
    const { accessToken, userId } = await signIn();
    const { payload, protectedHeader } = await jwtVerify(accessToken, createRemoteJWKSet(jwksUrl), { issuer: ISSUER, audience: AUDIENCE });
    expect(payload.sub).toBe(userId);
    expect(protectedHeader.alg).toBe('ES256');
  });

  it('rotate without refusing a live token; an isolate that has not reloaded takes the new current key (it had it as next)', async () => {
    const { accessToken: underA, organizationId, userId, email } = await signIn();
    const before = await keyRows();
    const a = before.find((row) => row.state === 'current')!;
    const b = before.find((row) => row.state === 'next')!;
    const db = pgClientDb(stack.db);
    const t0 = Math.max(a.activatedAtMs!, b.createdAtMs);
    const rotate = (nowMs: number) =>
      rotateSigningKeys({ db, secretsKeys }, { alg: 'ES256', nowMs, minIntervalMs: MIN_INTERVAL_MS, correlationId: `test-${uuidv7()}` });

    expect(await rotate(t0 + MIN_INTERVAL_MS - 1)).toEqual({ ok: false, reason: 'too-soon', allowedAtMs: t0 + MIN_INTERVAL_MS });
    const t1 = t0 + MIN_INTERVAL_MS;
    const first = await rotate(t1);
    expect(first).toMatchObject({ ok: true, created: false, currentKid: b.kid, previousKid: a.kid, retiredKid: null });
    expect((await invites(organizationId, underA)).status).toBe(200);

    // A new isolate (a configuration of its own, so a ring of its own) reads the rotated set and signs with B.
    const fresh = loadConfig(stack.env);
    const subject = { userId, sessionId: decodeJwt(underA).sid as string, email, organizationId };
    const underB = (await signAccessTokenFor({ config: fresh, clock: systemClock }, subject, { nowMs: Date.now(), ttlSeconds: 600 })).token;
    expect(decodeProtectedHeader(underB).kid).toBe(b.kid);
    // The stack's isolate read its set before the rotation: B was its next, so it verifies from memory.
    expect((await invites(organizationId, underB)).status).toBe(200);
    // The stack's isolate has not reloaded and still signs with A for up to its reload interval: that is why A stays.
    const lateUnderA = (await signAccessTokenFor(stack.deps, subject, { nowMs: t1, ttlSeconds: 900 })).token;
    expect(decodeProtectedHeader(lateUnderA).kid).toBe(a.kid);
    const publishedBeforeSecond = (await (await composeApp(stack.env).request('GET', '/.well-known/jwks.json')).json()) as {
      keys: Record<string, string>[];
    };
    expect(publishedBeforeSecond.keys.map((key) => key.kid)).toEqual([b.kid, first.ok ? first.nextKid : '', a.kid]);

    // The second rotation deletes A, and only once every token A can have signed has expired: then the expiry refuses it.
    expect(await rotate(t1 + MIN_INTERVAL_MS - 1)).toMatchObject({ ok: false, reason: 'too-soon' });
    const t2 = t1 + MIN_INTERVAL_MS;
    expect(decodeJwt(lateUnderA).exp! * 1000).toBeLessThan(t2);
    await expect(
      jwtVerify(lateUnderA, createLocalJWKSet(publishedBeforeSecond as never), {
        issuer: ISSUER,
        audience: AUDIENCE,
        currentDate: new Date(t2),
      }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_EXPIRED' });
    expect(await rotate(t2)).toMatchObject({ ok: true, currentKid: first.ok ? first.nextKid : '', previousKid: b.kid, retiredKid: a.kid });
    expect((await keyRows()).map((row) => row.kid).sort()).not.toContain(a.kid);
    expect((await keyRows()).map((row) => row.state).sort()).toEqual(['current', 'next', 'previous']);
  });

  it('refuse an unknown kid without a PostgreSQL storm: at most one read of the keys however many kids', async () => {
    const { organizationId, userId, email, accessToken } = await signIn();
    const { privateKey } = await generateKeyPair('ES256');
    // Known kids first: each a new token (so no cached verification), each verified from memory with no read of the keys.
    const subject = { userId, sessionId: decodeJwt(accessToken).sid as string, email, organizationId };
    // Signed by the stack's own isolate, whose set is the one it verifies with (the test above moved the table on).
    const tokens = await Promise.all(
      Array.from({ length: 20 }, async () => (await signAccessTokenFor(stack.deps, subject, { nowMs: Date.now(), ttlSeconds: 600 })).token),
    );
    await invites(organizationId, tokens[0]!);
    stack.neonProxy.stats.reset();
    for (const token of tokens) expect((await invites(organizationId, token)).status).toBe(200);
    expect(stack.neonProxy.stats.requestTexts.filter((text) => text.includes('signing_keys'))).toEqual([]);
    stack.neonProxy.stats.reset();
    for (let i = 0; i < 40; i++) {
      const forged = await new SignJWT({ sid: uuidv7(), org: organizationId, email: 'x@example.test', email_verified: true })
        .setProtectedHeader({ alg: 'ES256', kid: `forged-${i}-${uuidv7()}` })
        .setSubject(userId)
        .setJti(uuidv7())
        .setIssuedAt()
        .setExpirationTime('10m')
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .sign(privateKey);
      expect((await invites(organizationId, forged)).status).toBe(401);
    }
    const keyReads = stack.neonProxy.stats.requestTexts.filter((text) => text.includes('signing_keys'));
    expect(keyReads.length).toBeLessThanOrEqual(1);
  });

  it('an isolate that starts with PostgreSQL down refuses own tokens (401) and the JWKS (503), then recovers by itself', async () => {
    const { accessToken: signed, organizationId, userId, email } = await signIn();
    // Signed by an isolate that reads the keys as they are now (the test above moved them past the stack's own isolate).
    const subject = { userId, sessionId: decodeJwt(signed).sid as string, email, organizationId };
    const accessToken = (
      await signAccessTokenFor({ config: loadConfig(stack.env), clock: systemClock }, subject, { nowMs: Date.now(), ttlSeconds: 600 })
    ).token;
    // Its one expected error line (the JWKS's 503) is collected, not printed. Its clock is the test's: the ring reads it.
    const isolateLogs: string[] = [];
    let nowMs = Date.now();
    const clock = { now: () => nowMs };
    const isolate = composeApp(stack.env, { clock, logger: createJsonLogger((line) => isolateLogs.push(line)) });
    stack.neonProxy.faults.set({ refuse: true });
    try {
      expect((await isolate.request('GET', `/orgs/${organizationId}/invites`, { token: accessToken })).status).toBe(401);
      expect((await isolate.request('GET', '/.well-known/jwks.json')).status).toBe(503);
    } finally {
      stack.neonProxy.faults.clear();
    }
    // PostgreSQL answers again, but the ring reads the keys again only once the retry gap has passed on its clock.
    nowMs += SIGNING_KEYS_RETRY_GAP_MS - 1;
    expect((await isolate.request('GET', `/orgs/${organizationId}/invites`, { token: accessToken })).status).toBe(401);
    nowMs += 1;
    expect((await isolate.request('GET', `/orgs/${organizationId}/invites`, { token: accessToken })).status).toBe(200);
    expect(isolateLogs.join('\n')).toContain('"cause":"signing keys"');
  });

  it('never shows a private key: not in the JWKS, the logs, the answers or the audit rows (canary)', async () => {
    const { accessToken } = await signIn();
    const privateHalves = await Promise.all(
      (await keyRows()).map(async (row) => {
        const jwk = JSON.parse(await openSecret(secretsKeys, row.sealed, signingKeyBinding(row.kid, row.createdAtMs))) as { d: string };
        return [jwk.d, row.sealed.ciphertext];
      }),
    );
    const jwks = await (await stack.request('GET', '/.well-known/jwks.json')).text();
    const audit = JSON.stringify((await stack.db.query("SELECT * FROM audit_events WHERE action = 'signing_keys.rotated'")).rows);
    const seen = [jwks, audit, accessToken, stack.logs.join('\n')].join('\n');
    for (const secret of privateHalves.flat()) expect(seen).not.toContain(secret);
  });
});
