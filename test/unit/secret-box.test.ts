// The secret box: round trips, the binding, tampering, key choice and rotation, Node's crypto as an oracle, and errors that leak nothing.
import { createCipheriv, createDecipheriv, randomBytes as nodeRandomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SecretKey } from '../../lib/config/secrets-keys.ts';
import { base64urlDecode, base64urlEncode, bytesToHex, openSecret, sealSecret, SecretBoxError } from '../../lib/crypto/index.ts';
import type { SealedSecret, SigningKeyBinding, SyrvePasswordBinding as SecretBinding, TotpSecretBinding } from '../../lib/crypto/index.ts';

function newKey(kid: string): SecretKey {
  return { kid, key: new Uint8Array(nodeRandomBytes(32)) };
}

const oldKey = newKey('old');
const newestKey = newKey('new');
const binding: SecretBinding = {
  purpose: 'syrve-password',
  organizationId: '0190a0b1-0000-7000-8000-000000000001',
  connectionId: '0190a0b1-0000-7000-8000-000000000002',
  credentialVersion: 3,
};

const bindingArb = fc.record({
  purpose: fc.constant('syrve-password' as const),
  organizationId: fc.uuid(),
  connectionId: fc.uuid(),
  credentialVersion: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
});

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SecretBoxError);
  return (error as SecretBoxError).reason;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('sealSecret and openSecret', () => {
  it('round-trip any text under any binding', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), bindingArb, async (plaintext, b) => {
        const sealed = await sealSecret([newestKey, oldKey], plaintext, b);
        expect(await openSecret([newestKey, oldKey], sealed, b)).toBe(plaintext);
      }),
      { numRuns: 200 },
    );
  });

  it('store base64url(12-byte iv || ciphertext || 16-byte tag) under the first key id', async () => {
    const sealed = await sealSecret([newestKey, oldKey], 'päss', binding);
    expect(sealed.keyId).toBe('new');
    expect(sealed.ciphertext).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(base64urlDecode(sealed.ciphertext).length).toBe(12 + new TextEncoder().encode('päss').length + 16);
    // Only the first key opens it, whatever the order of the others.
    expect(await openSecret([newestKey], sealed, binding)).toBe('päss');
    expect(await reasonOf(openSecret([oldKey], sealed, binding))).toBe('unknown-key');
    expect(await reasonOf(openSecret([oldKey], { ...sealed, keyId: 'old' }, binding))).toBe('does-not-open');
  });

  it('still open a secret sealed with an older key while it is listed after the new one', async () => {
    const sealed = await sealSecret([oldKey], 'pw', binding);
    expect(sealed.keyId).toBe('old');
    expect(await openSecret([newestKey, oldKey], sealed, binding)).toBe('pw');
    expect(await reasonOf(openSecret([newestKey], sealed, binding))).toBe('unknown-key');
  });

  it('use a fresh IV every time', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const { ciphertext } = await sealSecret([newestKey], 'same', binding);
      seen.add(bytesToHex(base64urlDecode(ciphertext).subarray(0, 12)));
    }
    expect(seen.size).toBe(50);
  });

  it('import each key once', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey');
    const key = newKey('cached');
    for (let i = 0; i < 5; i++) await openSecret([key], await sealSecret([key], 'x', binding), binding);
    expect(importKey).toHaveBeenCalledTimes(1);
  });
});

describe('the binding', () => {
  const changes: Array<[string, Partial<SecretBinding>]> = [
    ['another purpose', { purpose: 'unknown-purpose' as 'syrve-password' }],
    ['another organisation', { organizationId: '0190a0b1-0000-7000-8000-000000000009' }],
    ['another connection (row)', { connectionId: '0190a0b1-0000-7000-8000-000000000009' }],
    ['an older credential version', { credentialVersion: 2 }],
    ['a newer credential version', { credentialVersion: 4 }],
  ];

  it.each(changes)('refuses %s', async (_, change) => {
    const sealed = await sealSecret([newestKey], 'pw', binding);
    expect(await reasonOf(openSecret([newestKey], sealed, { ...binding, ...change }))).toBe('does-not-open');
  });

  it('refuses any other binding, for arbitrary pairs', async () => {
    await fc.assert(
      fc.asyncProperty(bindingArb, bindingArb, async (sealedFor, openedFor) => {
        fc.pre(JSON.stringify(sealedFor) !== JSON.stringify(openedFor));
        const sealed = await sealSecret([newestKey], 'pw', sealedFor);
        expect(await reasonOf(openSecret([newestKey], sealed, openedFor))).toBe('does-not-open');
      }),
      { numRuns: 100 },
    );
  });

  it('keeps fields apart: ids that would concatenate alike are different bindings', async () => {
    const a = { ...binding, organizationId: 'a","b', connectionId: 'c' };
    const b = { ...binding, organizationId: 'a', connectionId: 'b","c' };
    const c = { ...binding, organizationId: 'a:b', connectionId: 'c' };
    const d = { ...binding, organizationId: 'a', connectionId: 'b:c' };
    for (const [x, y] of [
      [a, b],
      [c, d],
    ] as const) {
      expect(await reasonOf(openSecret([newestKey], await sealSecret([newestKey], 'pw', x), y))).toBe('does-not-open');
    }
  });

  it.each([
    ['a zero version', { credentialVersion: 0 }],
    ['a fractional version', { credentialVersion: 1.5 }],
    ['NaN', { credentialVersion: Number.NaN }],
    ['an empty organisation', { organizationId: '' }],
    ['an empty connection', { connectionId: '' }],
  ])('refuses to seal or open under %s', async (_, change) => {
    const bad = { ...binding, ...change };
    expect(await reasonOf(sealSecret([newestKey], 'pw', bad))).toBe('bad-binding');
    const sealed = await sealSecret([newestKey], 'pw', binding);
    expect(await reasonOf(openSecret([newestKey], sealed, bad))).toBe('bad-binding');
  });
});

describe('tampering and bad input', () => {
  it('refuses a ciphertext with any bit flipped (iv, body or tag)', async () => {
    const sealed = await sealSecret([newestKey], 'a password', binding);
    const bytes = base64urlDecode(sealed.ciphertext);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bytes.length * 8 - 1 }), async (bit) => {
        const flipped = new Uint8Array(bytes);
        flipped[bit >> 3]! ^= 1 << (bit & 7);
        const tampered: SealedSecret = { ...sealed, ciphertext: base64urlEncode(flipped) };
        expect(await reasonOf(openSecret([newestKey], tampered, binding))).toBe('does-not-open');
      }),
    );
  });

  it('refuses truncated, extended, empty and non-base64url ciphertexts', async () => {
    const sealed = await sealSecret([newestKey], 'a password', binding);
    const bytes = base64urlDecode(sealed.ciphertext);
    for (const ciphertext of [
      base64urlEncode(bytes.subarray(0, bytes.length - 1)),
      base64urlEncode(new Uint8Array([...bytes, 0])),
      base64urlEncode(bytes.subarray(0, 27)),
      '',
      `${sealed.ciphertext}=`,
      '!!!!',
    ]) {
      expect(await reasonOf(openSecret([newestKey], { ...sealed, ciphertext }, binding))).toBe('does-not-open');
    }
  });

  it('refuses an unknown key id and an empty key list', async () => {
    const sealed = await sealSecret([newestKey], 'pw', binding);
    expect(await reasonOf(openSecret([newestKey], { ...sealed, keyId: 'gone' }, binding))).toBe('unknown-key');
    expect(await reasonOf(openSecret([], sealed, binding))).toBe('no-keys');
    expect(await reasonOf(sealSecret([], 'pw', binding))).toBe('no-keys');
  });

  it('refuses a key that is not 32 bytes instead of silently using AES-128', async () => {
    const short = { kid: 'short', key: new Uint8Array(16) };
    expect(await reasonOf(sealSecret([short], 'pw', binding))).toBe('bad-key');
  });
});

describe("Node's crypto as an oracle", () => {
  const aad = (b: SecretBinding) =>
    Buffer.from(JSON.stringify(['runstate.secret-box.v1', b.purpose, b.organizationId, b.connectionId, b.credentialVersion]));

  it('decrypts what the box seals, with the documented layout and additional data', async () => {
    const sealed = await sealSecret([newestKey], 'ünïcode pässword', binding);
    const bytes = Buffer.from(base64urlDecode(sealed.ciphertext));
    const decipher = createDecipheriv('aes-256-gcm', newestKey.key, bytes.subarray(0, 12));
    decipher.setAAD(aad(binding));
    decipher.setAuthTag(bytes.subarray(-16));
    expect(Buffer.concat([decipher.update(bytes.subarray(12, -16)), decipher.final()]).toString('utf8')).toBe('ünïcode pässword');
  });

  it('is opened by the box when Node sealed it', async () => {
    const iv = nodeRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', oldKey.key, iv);
    cipher.setAAD(aad(binding));
    const body = Buffer.concat([cipher.update('from node', 'utf8'), cipher.final()]);
    const ciphertext = base64urlEncode(new Uint8Array(Buffer.concat([iv, body, cipher.getAuthTag()])));
    expect(await openSecret([newestKey, oldKey], { keyId: 'old', ciphertext }, binding)).toBe('from node');
  });
});

describe('signing keys (purpose signing-key)', () => {
  const key: SigningKeyBinding = { purpose: 'signing-key', kid: 'es256-20261207-0a1b2c3d4e5f', createdAtMs: 1_765_000_000_000 };

  it('open only as their own kid and creation time, never as another purpose', async () => {
    const sealed = await sealSecret([newestKey], '{"d":"private"}', key);
    expect(await openSecret([newestKey], sealed, key)).toBe('{"d":"private"}');
    const asTotp: TotpSecretBinding = { purpose: 'totp-secret', userId: key.kid, enrolledAtMs: key.createdAtMs };
    for (const other of [{ ...key, kid: 'es256-20261207-ffffffffffff' }, { ...key, createdAtMs: key.createdAtMs + 1 }, asTotp]) {
      expect(await reasonOf(openSecret([newestKey], sealed, other))).toBe('does-not-open');
    }
  });

  it('bind the documented additional data (Node as the oracle)', async () => {
    const sealed = await sealSecret([newestKey], 'jwk', key);
    const bytes = Buffer.from(base64urlDecode(sealed.ciphertext));
    const decipher = createDecipheriv('aes-256-gcm', newestKey.key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(JSON.stringify(['runstate.secret-box.v1', 'signing-key', key.kid, key.createdAtMs])));
    decipher.setAuthTag(bytes.subarray(-16));
    expect(Buffer.concat([decipher.update(bytes.subarray(12, -16)), decipher.final()]).toString('utf8')).toBe('jwk');
  });
});

describe('TOTP secrets (purpose totp-secret)', () => {
  const totp: TotpSecretBinding = {
    purpose: 'totp-secret',
    userId: '0190a0b1-0000-7000-8000-00000000000a',
    enrolledAtMs: 1_733_000_000_123,
  };

  it('round-trip, and open only for their own user and enrolment', async () => {
    const sealed = await sealSecret([newestKey], 'JBSWY3DPEHPK3PXP', totp);
    expect(await openSecret([newestKey], sealed, totp)).toBe('JBSWY3DPEHPK3PXP');
    for (const other of [
      { ...totp, userId: '0190a0b1-0000-7000-8000-00000000000b' },
      { ...totp, enrolledAtMs: totp.enrolledAtMs + 1 },
    ]) {
      expect(await reasonOf(openSecret([newestKey], sealed, other))).toBe('does-not-open');
    }
  });

  it('never open as a Syrve password, nor a Syrve password as a TOTP secret, even with look-alike ids', async () => {
    const asSyrve: SecretBinding = { purpose: 'syrve-password', organizationId: totp.userId, connectionId: 'x', credentialVersion: 1 };
    const sealedTotp = await sealSecret([newestKey], 'secret', totp);
    expect(await reasonOf(openSecret([newestKey], sealedTotp, asSyrve))).toBe('does-not-open');
    const sealedSyrve = await sealSecret([newestKey], 'secret', binding);
    const asTotp: TotpSecretBinding = { purpose: 'totp-secret', userId: binding.organizationId, enrolledAtMs: binding.credentialVersion };
    expect(await reasonOf(openSecret([newestKey], sealedSyrve, asTotp))).toBe('does-not-open');
  });

  it('bind the documented additional data (Node as the oracle)', async () => {
    const sealed = await sealSecret([newestKey], 'otp', totp);
    const bytes = Buffer.from(base64urlDecode(sealed.ciphertext));
    const decipher = createDecipheriv('aes-256-gcm', newestKey.key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(JSON.stringify(['runstate.secret-box.v1', 'totp-secret', totp.userId, totp.enrolledAtMs])));
    decipher.setAuthTag(bytes.subarray(-16));
    expect(Buffer.concat([decipher.update(bytes.subarray(12, -16)), decipher.final()]).toString('utf8')).toBe('otp');
  });

  it.each([
    ['an empty user', { userId: '' }],
    ['a zero enrolment time', { enrolledAtMs: 0 }],
    ['a fractional enrolment time', { enrolledAtMs: 1.5 }],
  ])('refuse to seal under %s, and an unknown purpose', async (_, change) => {
    expect(await reasonOf(sealSecret([newestKey], 'pw', { ...totp, ...change }))).toBe('bad-binding');
    const unknown = { purpose: 'webhook-secret', userId: totp.userId, enrolledAtMs: 1 } as unknown as TotpSecretBinding;
    expect(await reasonOf(sealSecret([newestKey], 'pw', unknown))).toBe('bad-binding');
  });
});

describe('errors', () => {
  it('carry no plaintext, ciphertext, key material or key id', async () => {
    const canary = 'canary-pw-7f3a9c';
    const sealed = await sealSecret([newestKey], canary, binding);
    // Thunks: a promise rejected before it is awaited would be reported as unhandled.
    const attempts: Array<() => Promise<unknown>> = [
      () => openSecret([newestKey], sealed, { ...binding, credentialVersion: 9 }),
      () => openSecret([newestKey], { ...sealed, ciphertext: `${sealed.ciphertext.slice(0, -2)}AA` }, binding),
      () => openSecret([newestKey], { ...sealed, keyId: 'secret-kid-canary' }, binding),
      () => openSecret([newestKey], { ...sealed, ciphertext: `${canary}!` }, binding),
      () => openSecret([], sealed, binding),
      () => sealSecret([], canary, binding),
      () => sealSecret([newestKey], canary, { ...binding, credentialVersion: 0 }),
      () => sealSecret([{ kid: 'short', key: newestKey.key.subarray(0, 16) }], canary, binding),
    ];
    const forbidden = [
      canary,
      sealed.ciphertext,
      sealed.ciphertext.slice(0, 16),
      'secret-kid-canary',
      bytesToHex(newestKey.key),
      base64urlEncode(newestKey.key),
      Buffer.from(newestKey.key).toString('base64'),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(
        () => expect.unreachable(),
        (e: unknown) => e as Error,
      );
      const text = [String(error), error.message, error.stack ?? '', JSON.stringify(error), String(error.cause ?? '')].join('\n');
      for (const value of forbidden) expect(text).not.toContain(value);
    }
    // Positive control: the forbidden values would have been found.
    expect(`${canary} ${sealed.ciphertext}`).toContain(canary);
  });
});
