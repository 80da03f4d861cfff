// The remembered jti digest (lib/runtime/revocation/jti-digest.ts) is the SHA-256 that names the denylist entry.
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../lib/crypto/index.ts';
import { jtiDigest } from '../../lib/runtime/revocation/jti-digest.ts';

describe('jtiDigest', () => {
  it('is the SHA-256 hex of the jti, the first time and every time after', async () => {
    const jti = crypto.randomUUID();
    const expected = await sha256Hex(jti);
    expect(await jtiDigest(jti)).toBe(expected);
    expect(await jtiDigest(jti)).toBe(expected);
  });

  it('gives each jti its own digest, past the number it remembers', async () => {
    const jtis = Array.from({ length: 4_200 }, (_, index) => `jti-${index}`);
    for (const jti of jtis) await jtiDigest(jti);
    for (const jti of [jtis[0]!, jtis[4_199]!]) expect(await jtiDigest(jti)).toBe(await sha256Hex(jti));
  });
});
