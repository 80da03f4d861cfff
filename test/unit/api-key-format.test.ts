// The API key's text as pure functions: its shape, its checksum against zlib's CRC-32, and what the checksum refuses.
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { apiKeyChecksum, apiKeyDisplayPrefix, generateApiKey, isWellFormedApiKey } from '../../lib/auth/api-keys/key-format.ts';
import { apiKeyHash } from '../../lib/auth/api-keys/key-hash.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The documented algorithm written out again (docs/design/api-keys.md#format), with zlib's CRC-32 as the oracle. */
function scannerChecksum(random: string): string {
  let value = BigInt(crc32(Buffer.from(random, 'ascii')));
  let out = '';
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(6, '0');
}

describe('API keys', () => {
  it('are rsk_, 32 base62 characters and a 6-character checksum a scanner recomputes offline', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) {
      expect(key).toMatch(/^rsk_[0-9A-Za-z]{38}$/);
      expect(key.slice(36)).toBe(scannerChecksum(key.slice(4, 36)));
      expect(isWellFormedApiKey(key)).toBe(true);
      expect(apiKeyDisplayPrefix(key)).toBe(key.slice(0, 12));
    }
    // Every character of the random part takes many values: nothing is fixed by the encoding.
    for (let position = 4; position < 36; position++) {
      expect(new Set(keys.map((key) => key[position])).size, `position ${position}`).toBeGreaterThan(40);
    }
  });

  it('has fixed checksums for fixed random parts (zlib: crc32("0"×32) = 0xa0f292d0)', () => {
    expect(crc32(Buffer.from('0'.repeat(32)))).toBe(0xa0f292d0);
    expect(apiKeyChecksum('0'.repeat(32))).toBe('2wjyrI');
    expect(scannerChecksum('0'.repeat(32))).toBe('2wjyrI');
    expect(apiKeyChecksum('abcdefghijklmnopqrstuvwxyzABCDEF')).toBe(scannerChecksum('abcdefghijklmnopqrstuvwxyzABCDEF'));
  });

  it('refuses a typo, a truncation, a wrong prefix or a bad checksum', () => {
    const key = generateApiKey();
    const flipped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(isWellFormedApiKey(flipped)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`rsx_${key.slice(4)}`)).toBe(false);
    expect(isWellFormedApiKey(`${key.slice(0, -6)}000000`)).toBe(key.endsWith('000000'));
    expect(isWellFormedApiKey(`${key} `)).toBe(false);
  });

  it('are stored as an HMAC under the index key with a label of their own: another key, another hash', async () => {
    const key = generateApiKey();
    const hash = await apiKeyHash('unit-test-index-hash-key-0123456789abcdef', key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(key.slice(4, 36).toLowerCase());
    expect(await apiKeyHash('another-index-hash-key-0123456789abcdef', key)).not.toBe(hash);
  });
});
