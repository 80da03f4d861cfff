// Keyed hashing of user input (emails, IPs, hosts, slugs) into a key segment that cannot be reversed.
import { hmacSha256Hex } from '../crypto/hmac.ts';
import { KeyError } from './key-error.ts';
import { isHex64 } from './segments.ts';

declare const hashedSegmentBrand: unique symbol;

/** 64 lowercase hex characters produced by `hashSegment`. The brand stops a raw email or IP from
 * being handed to a builder by mistake; builders re-check the shape at run time as well. */
export type HashedSegment = string & { readonly [hashedSegmentBrand]: true };

/** Mirrors the config rule for INDEX_HASH_KEY: a short key would make the HMAC guessable. */
const MIN_HASH_KEY_LENGTH = 32;

/**
 * Results remembered by key and value. The same subjects (a user, an organisation, a client address) are hashed on
 * each of their requests, the rate limiter two or three per authenticated request, and each HMAC is a WebCrypto job:
 * on Node about a tenth of a request's CPU (bench/README.md#cpu-per-request). The HMAC is deterministic, so a
 * remembered result is the one it would compute again. Bounded: the value used least recently goes first (a busy
 * subject stays while a stream of one-off client addresses passes through); a deployment has one key.
 */
const REMEMBERED_VALUES = 4_096;
const REMEMBERED_KEYS = 4;
const remembered = new Map<string, Map<string, HashedSegment>>();

function rememberedFor(secretKey: string): Map<string, HashedSegment> {
  let values = remembered.get(secretKey);
  if (values === undefined) {
    if (remembered.size >= REMEMBERED_KEYS) remembered.clear();
    values = new Map();
    remembered.set(secretKey, values);
  }
  return values;
}

// The throttles hash their subject (organisation or user id, a client address) with it; emails go through hashEmail;
// tenant resolution hashes "slug:<slug>" and "domain:<host>" (lib/runtime/tenants/resolve-keys.ts).
/**
 * HMAC-SHA256(secretKey, value) as lowercase hex. Keyed with the server secret INDEX_HASH_KEY rather
 * than a plain SHA-256, so a leaked keyspace or dump cannot be reversed by hashing candidate values.
 */
export async function hashSegment(secretKey: string, value: string): Promise<HashedSegment> {
  if (typeof secretKey !== 'string' || secretKey.length < MIN_HASH_KEY_LENGTH) {
    throw new KeyError('secretKey', `a string of at least ${MIN_HASH_KEY_LENGTH} characters`);
  }
  if (typeof value !== 'string') throw new KeyError('value', 'a string');
  const values = rememberedFor(secretKey);
  const known = values.get(value);
  if (known !== undefined) {
    // Last in the map's order again: the order is the eviction order.
    values.delete(value);
    values.set(value, known);
    return known;
  }
  const hash = (await hmacSha256Hex(secretKey, value)) as HashedSegment;
  if (values.size >= REMEMBERED_VALUES) values.delete(values.keys().next().value as string);
  values.set(value, hash);
  return hash;
}

/** The one normal form of an email for hashing and comparison: trimmed, lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The recipient hash of the invite email index (`emailHash` in the invite object). */
export function hashEmail(secretKey: string, email: string): Promise<HashedSegment> {
  return hashSegment(secretKey, normalizeEmail(email));
}

/** Re-brands a digest read back from a stored value (e.g. an invite object's `emailHash`) after checking its shape. */
export function parseHashedSegment(value: unknown, field = 'hashedSegment'): HashedSegment {
  if (!isHex64(value)) throw new KeyError(field, '64 lowercase hex characters (a hashSegment result)');
  return value as HashedSegment;
}
