// Validation and normalisation of single key segments: UUIDs, UUID "N" form, enums, digests.
import { KeyError } from './key-error.ts';

export const UUID_PATTERN = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
export const HEX64_PATTERN = '[0-9a-f]{64}';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX64 = /^[0-9a-f]{64}$/;

/** True for the canonical 8-4-4-4-12 form in either case (no braces, no `urn:uuid:`, no whitespace). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && CANONICAL_UUID.test(value);
}

/** The lowercase canonical form used in keys; a UUID has no `:`, `{` or `}`, so it cannot inject a segment.
 * Either case is accepted so an id that passed request validation (zod accepts upper case) cannot
 * yield a second key for the same object. */
export function normalizeUuid(value: unknown, field: string): string {
  if (!isUuid(value)) throw new KeyError(field, 'a UUID (8-4-4-4-12 hex)');
  return value.toLowerCase();
}

/** UUID "N" form (32 lowercase hex, no dashes): the member format of the sorted-set indexes. */
export function toUuidN(uuid: string): string {
  return normalizeUuid(uuid, 'uuid').replace(/-/g, '');
}

/** 64 lowercase hex characters, the shape of a SHA-256 or HMAC-SHA256 digest. */
export function isHex64(value: unknown): value is string {
  return typeof value === 'string' && HEX64.test(value);
}

export function requireHex64(value: unknown, field: string): string {
  if (!isHex64(value)) throw new KeyError(field, '64 lowercase hex characters');
  return value;
}

/** Returns the value typed as a member of `allowed`, or throws. */
export function requireEnum<const T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new KeyError(field, `one of ${allowed.join(', ')}`);
  }
  return value as T;
}
