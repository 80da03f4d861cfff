// The API key's text: `rsk_`, 32 random base62 characters and a 6-character checksum a secret scanner can check offline.
import { randomBytes } from '../../crypto/index.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PREFIX = 'rsk_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** The characters shown to tell keys apart (`rsk_` and 8 of the random part): never enough to guess the rest. */
const DISPLAY_LENGTH = KEY_PREFIX.length + 8;

/** `rsk_` + 32 + 6 base62 characters; nothing else is ever an API key. */
const API_KEY_PATTERN = /^rsk_[0-9A-Za-z]{38}$/;

/**
 * A new key: 32 characters drawn uniformly from base62 (about 190 bits; bytes of 248 and above are skipped, so every
 * character is equally likely), then the checksum of those 32 characters (apiKeyChecksum).
 */
export function generateApiKey(): string {
  let random = '';
  while (random.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(RANDOM_LENGTH)) {
      if (byte < 248 && random.length < RANDOM_LENGTH) random += ALPHABET[byte % 62];
    }
  }
  return `${KEY_PREFIX}${random}${apiKeyChecksum(random)}`;
}

/**
 * The checksum (docs/design/api-keys.md#format): CRC-32 (IEEE 802.3, as zlib's crc32) of the random part's ASCII
 * bytes, written in base62 with the most significant digit first and left-padded with `0` to 6 characters.
 */
export function apiKeyChecksum(random: string): string {
  let crc = 0xffffffff;
  for (let i = 0; i < random.length; i++) {
    crc ^= random.charCodeAt(i);
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  let value = (crc ^ 0xffffffff) >>> 0;
  let digits = '';
  while (value > 0) {
    digits = ALPHABET[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits.padStart(CHECKSUM_LENGTH, '0');
}

/** Whether `text` has a key's shape and a matching checksum: a typo or a truncated key is refused before any store is asked. */
export function isWellFormedApiKey(text: string): boolean {
  if (!API_KEY_PATTERN.test(text)) return false;
  const random = text.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return apiKeyChecksum(random) === text.slice(KEY_PREFIX.length + RANDOM_LENGTH);
}

/** What a key's listing shows of it. */
export function apiKeyDisplayPrefix(key: string): string {
  return key.slice(0, DISPLAY_LENGTH);
}
