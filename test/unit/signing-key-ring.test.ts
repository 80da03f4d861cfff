// One isolate's signing-key ring (lib/auth/signing-keys/key-ring.ts) over a source the test holds: a known kid costs no
// read, unknown kids cost at most one read per gap, a failed first read (PostgreSQL down at start) recovers after the
// gap, and a key the ring had as `next` verifies once it signs, with no reload.
import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { parseSecretsKeys } from '../../lib/config/secrets-keys.ts';
import { openSecret } from '../../lib/crypto/secret-box.ts';
import { generateSigningKey, signingKeyBinding } from '../../lib/auth/signing-keys/generate-signing-key.ts';
import { createSigningKeyRing, SIGNING_KEYS_RELOAD_INTERVAL_MS, SIGNING_KEYS_RETRY_GAP_MS } from '../../lib/auth/signing-keys/key-ring.ts';
import type { SigningKeyState, StoredSigningAlgorithm, StoredSigningKey } from '../../lib/auth/signing-keys/stored-keys.ts';
import { TEST_SECRETS_KEYS } from '../support/fixtures.ts';

const secretsKeys = parseSecretsKeys(TEST_SECRETS_KEYS);

async function stored(state: SigningKeyState, alg: StoredSigningAlgorithm = 'ES256'): Promise<StoredSigningKey> {
  const key = await generateSigningKey(secretsKeys, alg, 1_000);
  return { ...key, state, activatedAtMs: state === 'next' ? null : 1_000 };
}

/** A source whose rows the test replaces, with a clock it drives and a count of reads. */
function source(initial: StoredSigningKey[]) {
  const state = { rows: initial, nowMs: 10_000, loads: 0, down: false };
  return {
    state,
    ring: createSigningKeyRing({
      load: async () => {
        state.loads += 1;
        if (state.down) throw new Error('database call failed: signing keys');
        return state.rows;
      },
      openPrivate: (key) => openSecret(secretsKeys, key.sealed, signingKeyBinding(key.kid, key.createdAtMs)),
      now: () => state.nowMs,
    }),
  };
}

describe('the signing-key ring', () => {
  it('signs with the current key under its kid, and verifies by kid from memory after the first read', async () => {
    for (const alg of ['ES256', 'EdDSA'] as const) {
      const current = await stored('current', alg);
      const { state, ring } = source([current, await stored('next', alg)]);
      const signing = await ring.signingKey();
      expect(signing).toMatchObject({ kid: current.kid, alg });
      const token = await new SignJWT({}).setProtectedHeader({ alg, kid: signing.kid }).setExpirationTime('5m').sign(signing.key);
      for (let i = 0; i < 50; i++) {
        const found = await ring.verificationKey(current.kid);
        await jwtVerify(token, found!.key, { algorithms: [alg] });
      }
      expect(state.loads).toBe(1);
    }
  });

  it('reads PostgreSQL at most once per gap for kids it does not know', async () => {
    const { state, ring } = source([await stored('current'), await stored('next')]);
    await ring.publishedJwks();
    expect(state.loads).toBe(1);
    state.nowMs += SIGNING_KEYS_RETRY_GAP_MS;
    await Promise.all(Array.from({ length: 200 }, (_, i) => ring.verificationKey(`random-${i}`)));
    expect(state.loads).toBe(2);
    for (let i = 0; i < 100; i++) expect(await ring.verificationKey(`more-${i}`)).toBeUndefined();
    expect(state.loads).toBe(2);
    state.nowMs += SIGNING_KEYS_RETRY_GAP_MS;
    expect(await ring.verificationKey('after-the-gap')).toBeUndefined();
    expect(state.loads).toBe(3);
  });

  it('accepts a token of the new current key without a reload: it had that key as next', async () => {
    const [current, next] = [await stored('current'), await stored('next')];
    const { state, ring } = source([current, next]);
    await ring.verificationKey(current.kid);
    // The rotation, as another isolate sees it; this one has not read since.
    const fresh = await stored('next');
    state.rows = [{ ...current, state: 'previous' }, { ...next, state: 'current', activatedAtMs: 2_000 }, fresh];
    state.nowMs += 1_000;
    expect((await ring.verificationKey(next.kid))?.alg).toBe('ES256');
    expect((await ring.verificationKey(current.kid))?.alg).toBe('ES256');
    expect(state.loads).toBe(1);
    // Past the interval, the next verification serves from memory and reads again behind it.
    state.nowMs += SIGNING_KEYS_RELOAD_INTERVAL_MS;
    expect(await ring.verificationKey(next.kid)).toBeDefined();
    expect(state.loads).toBe(2);
    expect((await ring.signingKey()).kid).toBe(next.kid);
    expect((await ring.publishedJwks()).keys.map((key) => key.kid)).toEqual([next.kid, fresh.kid, current.kid]);
  });

  it('with PostgreSQL down at start: refuses (no key), retries only after the gap, then works', async () => {
    const current = await stored('current');
    const { state, ring } = source([current, await stored('next')]);
    state.down = true;
    expect(await ring.verificationKey(current.kid)).toBeUndefined();
    for (let i = 0; i < 20; i++) expect(await ring.verificationKey(current.kid)).toBeUndefined();
    expect(state.loads).toBe(1);
    await expect(ring.publishedJwks()).rejects.toThrow('database call failed');
    await expect(ring.signingKey()).rejects.toThrow('database call failed');
    state.down = false;
    state.nowMs += SIGNING_KEYS_RETRY_GAP_MS;
    expect(await ring.verificationKey(current.kid)).toBeDefined();
  });

  it('keeps serving the set it has when a later read fails', async () => {
    const current = await stored('current');
    const { state, ring } = source([current, await stored('next')]);
    await ring.publishedJwks();
    state.down = true;
    state.nowMs += SIGNING_KEYS_RELOAD_INTERVAL_MS;
    expect(await ring.verificationKey(current.kid)).toBeDefined();
    expect((await ring.publishedJwks()).keys).toHaveLength(2);
  });

  it('has nothing to sign with when there is no current key and nothing may create one', async () => {
    const { ring } = source([]);
    await expect(ring.signingKey()).rejects.toMatchObject({ code: 'NOT_CONFIGURED', status: 503 });
  });

  it('publishes public members only', async () => {
    const { ring } = source([await stored('current'), await stored('next', 'EdDSA')]);
    const { keys } = await ring.publishedJwks();
    expect(Object.keys(keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    expect(Object.keys(keys[1]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  });
});
