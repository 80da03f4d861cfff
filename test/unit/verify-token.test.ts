// Bearer verification: RS256 against a JWKS (issuer and audience enforced), HS256 only with its secret, no algorithm confusion,
// and this deployment's own tokens bound to an organisation (the org claim) once the isolate started.
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import type { Principal } from '../../lib/auth/claims.ts';
import { base64urlEncode } from '../../lib/crypto/index.ts';
import { uuidv7 } from 'uuidv7';
import { signAccessToken } from '../../lib/auth/tokens/access-token.ts';
import { createTokenVerifier } from '../../lib/auth/verify-token.ts';
import { parseSigningKeys } from '../../lib/config/signing-keys.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

let server: Server;
let jwksUrl: string;
let privateKey: CryptoKey;
let otherKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  jwksUrl = `http://127.0.0.1:${address.port}/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const issuer = 'https://id.example/';
const audience = 'runstate';

function claims(extra: Record<string, unknown> = {}) {
  return new SignJWT({ sid: uuidv7(), email: 'a@example.test', ...extra })
    .setSubject(uuidv7())
    .setJti(uuidv7())
    .setIssuedAt()
    .setExpirationTime('5m');
}

describe('RS256 via JWKS', () => {
  it('accepts a token signed by the published key with the right issuer and audience', async () => {
    const verify = createTokenVerifier({ external: { jwksUrl, issuer, audience } }, { maxLifetimeSeconds: 900 });
    const token = await claims({ email_verified: true })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(issuer)
      .setAudience(audience)
      .sign(privateKey);
    const principal = await verify(token);
    expect(principal?.verifiedEmail).toBe('a@example.test');
  });

  it.each([
    [
      'another key',
      async () => claims().setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer).setAudience(audience).sign(otherKey),
    ],
    [
      'the wrong issuer',
      async () =>
        claims().setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer('https://evil/').setAudience(audience).sign(privateKey),
    ],
    [
      'the wrong audience',
      async () => claims().setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer).setAudience('other').sign(privateKey),
    ],
    [
      'an HS256 token (algorithm confusion)',
      async () =>
        claims()
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(issuer)
          .setAudience(audience)
          .sign(new TextEncoder().encode('x'.repeat(32))),
    ],
    [
      'a missing sid',
      async () =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setSubject(uuidv7())
          .setJti('j')
          .setIssuedAt()
          .setExpirationTime('5m')
          .setIssuer(issuer)
          .setAudience(audience)
          .sign(privateKey),
    ],
    [
      'a non-UUID subject',
      async () =>
        claims()
          .setSubject('admin')
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setIssuer(issuer)
          .setAudience(audience)
          .sign(privateKey),
    ],
  ])('refuses %s', async (_name, make) => {
    const verify = createTokenVerifier({ external: { jwksUrl, issuer, audience } }, { maxLifetimeSeconds: 900 });
    expect(await verify(await make())).toBeUndefined();
  });
});

describe('HS256 (dev/test)', () => {
  const secret = 's'.repeat(40);
  it('accepts its own secret; only email_verified=true makes the email verified (false or missing: none)', async () => {
    const verify = createTokenVerifier({ hs256: { secret } }, { maxLifetimeSeconds: 900 });
    const key = new TextEncoder().encode(secret);
    const sign = (extra: Record<string, unknown>) => claims(extra).setProtectedHeader({ alg: 'HS256' }).sign(key);
    expect((await verify(await sign({ email_verified: true })))?.verifiedEmail).toBe('a@example.test');
    for (const extra of [{ email_verified: false }, {}]) {
      const unverified = await verify(await sign(extra));
      expect(unverified, JSON.stringify(extra)).toBeDefined();
      expect(unverified?.verifiedEmail, JSON.stringify(extra)).toBeUndefined();
    }
  });

  it('refuses an alg:none token and an expired one', async () => {
    const verify = createTokenVerifier({ hs256: { secret } }, { maxLifetimeSeconds: 900 });
    const none = `${btoa(JSON.stringify({ alg: 'none' }))}.${btoa(JSON.stringify({ sub: uuidv7(), sid: uuidv7(), jti: 'j', iat: 1, exp: 9_999_999_999 }))}.`;
    expect(await verify(none)).toBeUndefined();
    const expired = await claims()
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(secret));
    expect(await verify(expired)).toBeUndefined();
  });
});

describe("HS256: a handoff token is its audience's alone", () => {
  const secret = 'h'.repeat(40);
  /** What POST /auth/handoff/exchange signs in HS256 mode: this deployment's own token, made out to another app. */
  const handedTo = (app: string) =>
    signAccessToken(
      { hs256: { secret } },
      { userId: uuidv7(), sessionId: uuidv7(), email: 'a@example.test' },
      { nowMs: Date.now(), ttlSeconds: 600, audience: app },
    ).then((signed) => signed.token);
  const own = () =>
    signAccessToken(
      { hs256: { secret } },
      { userId: uuidv7(), sessionId: uuidv7(), email: 'a@example.test' },
      { nowMs: Date.now(), ttlSeconds: 600 },
    ).then((signed) => signed.token);

  it('this deployment (no AUTH_AUDIENCE) refuses a token made out to another app, and takes its own (no aud)', async () => {
    const verify = createTokenVerifier({ hs256: { secret } }, { maxLifetimeSeconds: 900 });
    expect(await verify(await handedTo('console'))).toBeUndefined();
    expect(await verify(await own())).toBeDefined();
  });

  it('an app checking its own audience takes the token made out to it and refuses one made out to any other', async () => {
    const asConsole = createTokenVerifier({ hs256: { secret, audience: 'console' } }, { maxLifetimeSeconds: 900 });
    const asReports = createTokenVerifier({ hs256: { secret, audience: 'reports' } }, { maxLifetimeSeconds: 900 });
    const forConsole = await handedTo('console');
    expect(await asConsole(forConsole)).toBeDefined();
    expect(await asReports(forConsole)).toBeUndefined();
    expect(await asReports(await handedTo('reports'))).toBeDefined();
    // A token with no audience at all is no app's.
    expect(await asConsole(await own())).toBeUndefined();
  });
});

describe('lifetime', () => {
  const secret = 'a-test-hs256-secret-of-at-least-32-chars';
  const key = new TextEncoder().encode(secret);
  const verify = createTokenVerifier({ hs256: { secret } }, { maxLifetimeSeconds: 900 });
  const now = () => Math.floor(Date.now() / 1000);
  const token = (iat: number, exp: number) =>
    new SignJWT({ sid: uuidv7() })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(uuidv7())
      .setJti(uuidv7())
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(key);

  it('accepts a token that lives exactly the longest lifetime the denylist covers', async () => {
    expect(await verify(await token(now(), now() + 900))).toBeDefined();
  });

  it('refuses a token that lives longer, even one issued long ago and about to expire', async () => {
    expect(await verify(await token(now(), now() + 901))).toBeUndefined();
    expect(await verify(await token(now() - 43_000, now() + 60))).toBeUndefined();
  });

  it('refuses a token whose future iat would stretch its expiry past the denylist entry', async () => {
    expect(await verify(await token(now() + 3_600, now() + 3_600 + 600))).toBeUndefined();
  });
});

describe('a verified token reused within its lifetime (lib/auth/verified-tokens.ts)', () => {
  const secret = 'a-test-hs256-secret-for-the-verified-cache';
  const key = new TextEncoder().encode(secret);
  afterEach(() => vi.useRealTimers());

  it('is refused once its exp has come, though verified before', async () => {
    const verify = createTokenVerifier({ hs256: { secret } }, { maxLifetimeSeconds: 900 });
    const issued = Math.floor(Date.now() / 1000);
    const token = await claims()
      .setIssuedAt(issued)
      .setExpirationTime(issued + 60)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(key);
    expect(await verify(token)).toBeDefined();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime((issued + 59) * 1000);
    expect(await verify(token)).toBeDefined();
    vi.setSystemTime((issued + 60) * 1000);
    expect(await verify(token)).toBeUndefined();
  });

  it('is taken only whole: a token differing in its signature or payload is verified on its own and refused', async () => {
    const verify = createTokenVerifier({ hs256: { secret } }, { maxLifetimeSeconds: 900 });
    const token = await claims().setProtectedHeader({ alg: 'HS256' }).sign(key);
    expect(await verify(token)).toBeDefined();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.at(-1)}`;
    expect(await verify(`${header}.${payload}.${flipped}`)).toBeUndefined();
    const other = base64urlEncode(new TextEncoder().encode(JSON.stringify({ ...decodeJwt(token), sub: uuidv7() })));
    expect(await verify(`${header}.${other}.${signature}`)).toBeUndefined();
  });

  it('answers a principal of its own each time: a caller changing one changes no other request', async () => {
    const verify = createTokenVerifier({ hs256: { secret } }, { maxLifetimeSeconds: 900 });
    const token = await claims({ email_verified: true }).setProtectedHeader({ alg: 'HS256' }).sign(key);
    const first = (await verify(token)) as Principal;
    const userId = first.userId;
    first.userId = uuidv7();
    delete first.verifiedEmail;
    const second = await verify(token);
    expect(second?.userId).toBe(userId);
    expect(second?.verifiedEmail).toBe('a@example.test');
  });
});

describe("this deployment's own keys: a token without the org claim (lib/auth/verify-token.ts)", () => {
  const ownIssuer = 'https://auth.runstate.test/';
  const signing = { keys: parseSigningKeys(testSigningKeys('own')), issuer: ownIssuer, audience: 'runstate' };
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  /** A token of the own keys issued `ageSeconds` ago, living 600 s, bound to `organizationId` when given. */
  const ownToken = (ageSeconds: number, organizationId?: string) =>
    signAccessToken(
      { signing },
      { userId: uuidv7(), sessionId: uuidv7(), email: 'a@example.test', ...(organizationId !== undefined ? { organizationId } : {}) },
      { nowMs: (nowSeconds() - ageSeconds) * 1000, ttlSeconds: 600 },
    ).then((signed) => signed.token);

  it('takes a bound token whenever it was issued, and hands its organisation to the principal', async () => {
    const organizationId = uuidv7();
    const verify = createTokenVerifier({ signing }, { maxLifetimeSeconds: 900, unboundOwnTokensIssuedBefore: nowSeconds() - 300 });
    expect((await verify(await ownToken(0, organizationId)))?.organizationId).toBe(organizationId);
    expect((await verify(await ownToken(400, organizationId)))?.organizationId).toBe(organizationId);
  });

  it('refuses one issued since the cut-over, and takes one issued before it as unbound until it expires', async () => {
    const cutoff = nowSeconds() - 300;
    const verify = createTokenVerifier({ signing }, { maxLifetimeSeconds: 900, unboundOwnTokensIssuedBefore: cutoff });
    expect(await verify(await ownToken(0))).toBeUndefined();
    expect(await verify(await ownToken(295))).toBeUndefined();
    const older = await verify(await ownToken(330));
    expect(older).toBeDefined();
    expect(older?.organizationId).toBeUndefined();
    // Issued before the cut-over but past its 600 s: expired, as any token.
    expect(await verify(await ownToken(601))).toBeUndefined();
  });

  it("defaults the cut-over to the isolate's start: one signed now is refused, one signed before it is taken", async () => {
    const verify = createTokenVerifier({ signing }, { maxLifetimeSeconds: 900 });
    expect(await verify(await ownToken(0))).toBeUndefined();
    expect(await verify(await ownToken(0, uuidv7()))).toBeDefined();
    // This file's first verifier was made when it loaded, well within the last 500 s.
    expect(await verify(await ownToken(500))).toBeDefined();
  });

  it("leaves an external provider's tokens and HS256 (dev/test) tokens without the claim to today's rules", async () => {
    const verify = createTokenVerifier(
      { signing, external: { jwksUrl, issuer, audience } },
      { maxLifetimeSeconds: 900, unboundOwnTokensIssuedBefore: 0 },
    );
    const external = await claims()
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(issuer)
      .setAudience(audience)
      .sign(privateKey);
    expect(await verify(external)).toBeDefined();
    expect(await verify(await ownToken(0))).toBeUndefined();
    const secret = 'd'.repeat(40);
    const hs256 = createTokenVerifier({ hs256: { secret } }, { maxLifetimeSeconds: 900, unboundOwnTokensIssuedBefore: 0 });
    const minted = await claims().setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
    expect((await hs256(minted))?.organizationId).toBeUndefined();
  });
});
