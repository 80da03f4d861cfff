// The PKCE verifier and nonce of an OIDC sign-in are HMACs of the state under the server key: valid RFC 7636
// verifiers, the same on every call for one state, and unrelated across states, keys and purposes.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { nonceFor, pkceVerifierFor } from '../../lib/auth/oidc/derived-secrets.ts';
import { allowsInsecure } from '../../lib/auth/oidc/provider-client.ts';

const KEY = 'test-only-index-hash-key-0123456789abcdef';
const STATE = `rso_${'s'.repeat(43)}`;

describe('pkceVerifierFor', () => {
  it('is an RFC 7636 verifier: 43 characters of base64url, 256 bits', async () => {
    const verifier = await pkceVerifierFor(KEY, STATE);
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(verifier, 'base64url')).toHaveLength(32);
  });

  it('is HMAC-SHA256 of a labelled state under the key (known answer, computed apart with node:crypto)', async () => {
    const expected = createHmac('sha256', KEY).update(`runstate/oidc/pkce-verifier/v1\n${STATE}`).digest('base64url');
    expect(await pkceVerifierFor(KEY, STATE)).toBe(expected);
    expect(await nonceFor(KEY, STATE)).toBe(createHmac('sha256', KEY).update(`runstate/oidc/nonce/v1\n${STATE}`).digest('base64url'));
  });

  it('is the same for one state, and differs by state, by key and from the nonce', async () => {
    const verifier = await pkceVerifierFor(KEY, STATE);
    expect(await pkceVerifierFor(KEY, STATE)).toBe(verifier);
    expect(await pkceVerifierFor(KEY, `${STATE.slice(0, -1)}t`)).not.toBe(verifier);
    expect(await pkceVerifierFor(`${KEY}x`, STATE)).not.toBe(verifier);
    expect(await nonceFor(KEY, STATE)).not.toBe(verifier);
  });

  it('gives the S256 challenge a provider checks: BASE64URL(SHA256(verifier)), as oauth4webapi computes it', async () => {
    const verifier = await pkceVerifierFor(KEY, STATE);
    expect(await oauth.calculatePKCECodeChallenge(verifier)).toBe(createHash('sha256').update(verifier).digest('base64url'));
    // RFC 7636 appendix B.
    expect(await oauth.calculatePKCECodeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });
});

describe('allowsInsecure', () => {
  it('allows plain http only for a loopback issuer in dev and test', () => {
    expect(allowsInsecure('dev', 'http://127.0.0.1:4000')).toBe(true);
    expect(allowsInsecure('test', 'http://localhost:4000')).toBe(true);
    expect(allowsInsecure('dev', 'http://id.example.test')).toBe(false);
    expect(allowsInsecure('dev', 'https://127.0.0.1:4000')).toBe(false);
    expect(allowsInsecure('staging', 'http://127.0.0.1:4000')).toBe(false);
    expect(allowsInsecure('prod', 'http://127.0.0.1:4000')).toBe(false);
  });
});
