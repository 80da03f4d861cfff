// Bearer verification with the stored signing keys (lib/auth/verify-token.ts over lib/auth/signing-keys/key-ring.ts): the
// header's kid picks the key, that key's algorithm alone is accepted, and the own-token rules (issuer, audience, org) hold.
import { SignJWT, generateKeyPair } from 'jose';
import { uuidv7 } from 'uuidv7';
import { describe, expect, it } from 'vitest';
import { parseSecretsKeys } from '../../lib/config/secrets-keys.ts';
import { openSecret } from '../../lib/crypto/secret-box.ts';
import { generateSigningKey, signingKeyBinding } from '../../lib/auth/signing-keys/generate-signing-key.ts';
import { createSigningKeyRing } from '../../lib/auth/signing-keys/key-ring.ts';
import type { StoredSigningKey } from '../../lib/auth/signing-keys/stored-keys.ts';
import { signAccessToken } from '../../lib/auth/tokens/access-token.ts';
import { createTokenVerifier } from '../../lib/auth/verify-token.ts';
import { TEST_SECRETS_KEYS } from '../support/fixtures.ts';

const secretsKeys = parseSecretsKeys(TEST_SECRETS_KEYS);
const issuer = 'https://auth.runstate.test/';
const auth = { stored: { alg: 'ES256' as const, issuer, audience: 'runstate' } };

async function ringWith(states: Array<StoredSigningKey['state']>) {
  const rows: StoredSigningKey[] = [];
  for (const state of states) rows.push({ ...(await generateSigningKey(secretsKeys, 'ES256', 1_000)), state, activatedAtMs: 1_000 });
  const ring = createSigningKeyRing({
    load: async () => rows,
    openPrivate: (key) => openSecret(secretsKeys, key.sealed, signingKeyBinding(key.kid, key.createdAtMs)),
    now: () => Date.now(),
  });
  return { rows, ring };
}

const subject = () => ({ userId: uuidv7(), sessionId: uuidv7(), email: 'a@example.test', organizationId: uuidv7() });
/** A subject without an organisation: the token carries no `org`. */
const unbound = () => {
  const { organizationId: _organizationId, ...rest } = subject();
  return rest;
};

describe('tokens of the stored keys', () => {
  it('verify by kid with their key, and every published key verifies what it signed', async () => {
    const { ring } = await ringWith(['current', 'next']);
    const verify = createTokenVerifier(auth, { maxLifetimeSeconds: 900, storedKeys: ring });
    const who = subject();
    const { token } = await signAccessToken(auth, who, { nowMs: Date.now(), ttlSeconds: 600, storedKeys: ring });
    expect(await verify(token)).toMatchObject({ userId: who.userId, organizationId: who.organizationId });
  });

  it('refuse no kid, an unknown kid, a kid whose key did not sign, another algorithm, another issuer or audience, and no org', async () => {
    const { rows, ring } = await ringWith(['current', 'next']);
    const verify = createTokenVerifier(auth, { maxLifetimeSeconds: 900, storedKeys: ring, unboundOwnTokensIssuedBefore: 0 });
    const other = (await generateKeyPair('ES256')).privateKey;
    const current = rows[0]!;
    const base = (extra: Record<string, unknown> = {}) =>
      new SignJWT({ sid: uuidv7(), org: uuidv7(), ...extra })
        .setSubject(uuidv7())
        .setJti(uuidv7())
        .setIssuedAt()
        .setExpirationTime('5m')
        .setIssuer(issuer)
        .setAudience('runstate');
    const refused: Array<[string, Promise<string>]> = [
      ['no kid', base().setProtectedHeader({ alg: 'ES256' }).sign(other)],
      ['an unknown kid', base().setProtectedHeader({ alg: 'ES256', kid: 'es256-unknown' }).sign(other)],
      ["another key under the current key's kid", base().setProtectedHeader({ alg: 'ES256', kid: current.kid }).sign(other)],
      [
        'HS256 keyed with the public x (algorithm confusion)',
        base().setProtectedHeader({ alg: 'HS256', kid: current.kid }).sign(new TextEncoder().encode(current.publicJwk.x)),
      ],
      [
        'another issuer',
        signAccessToken({ stored: { ...auth.stored, issuer: 'https://elsewhere/' } }, subject(), {
          nowMs: Date.now(),
          ttlSeconds: 600,
          storedKeys: ring,
        }).then((signed) => signed.token),
      ],
      [
        'another audience',
        signAccessToken(auth, subject(), { nowMs: Date.now(), ttlSeconds: 600, audience: 'another-app', storedKeys: ring }).then(
          (signed) => signed.token,
        ),
      ],
      [
        'no org, signed since the isolate started',
        signAccessToken(auth, unbound(), { nowMs: Date.now(), ttlSeconds: 600, storedKeys: ring }).then((signed) => signed.token),
      ],
    ];
    for (const [what, token] of refused) expect(await verify(await token), what).toBeUndefined();
  });

  it('need their ring to sign', async () => {
    await expect(signAccessToken(auth, subject(), { nowMs: Date.now(), ttlSeconds: 600 })).rejects.toThrow('signAccessTokenFor');
  });
});
