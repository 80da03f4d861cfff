// Shared fast-check generators for the key tests: hostile strings, valid ids, namespaces.
import fc from 'fast-check';

/** An oracle independent of lib/keys: the canonical UUID shape in either case. */
export const looksLikeUuid = (value: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

const hostileUnit = fc.constantFrom(
  ':',
  '{',
  '}',
  '*',
  '?',
  '[',
  ']',
  ' ',
  '\t',
  '\n',
  '\u0000',
  '@',
  '.',
  '-',
  'a',
  'F',
  '0',
  '9',
  'é',
  'ß',
  '😀',
  '\u202e',
);

/** Strings a caller might pass by mistake or an attacker on purpose, plus almost-UUIDs and real ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: hostileUnit }),
  fc.string({ unit: hostileUnit, minLength: 1_000, maxLength: 5_000 }),
  fc.uuid().map((u) => `{${u}}`),
  fc.uuid().map((u) => `${u}:`),
  fc.uuid().map((u) => ` ${u}`),
  fc.uuid().map((u) => u.replace(/-/g, '')),
  fc.uuid().map((u) => `${u.slice(0, 35)}:`),
  fc.uuid().map((u) => `urn:uuid:${u}`),
  // Right length and alphabet, wrong layout: only the 8-4-4-4-12 shape is a UUID.
  fc.uuid().map((u) => `${u.replace(/-/g, '')}----`),
  fc.uuid().map((u) => `${u.slice(0, 9)}${u.slice(8, 35)}`),
  fc.string({ unit: fc.constantFrom('0', '7', 'a', 'f', '-'), minLength: 36, maxLength: 36 }),
  fc.uuid(),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.emailAddress(),
);

/** A valid id in either case, as request validation would let it through. */
export const validUuid: fc.Arbitrary<string> = fc.tuple(fc.uuid(), fc.boolean()).map(([u, upper]) => (upper ? u.toUpperCase() : u));

export const maybeUuid: fc.Arbitrary<string> = fc.oneof(validUuid, hostileString);

export const keyPrefix = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
export const keyEnv = fc.constantFrom('dev', 'test', 'staging', 'prod' as const);

export const HASH_KEY = 'test-index-hash-key-0123456789abcdef';

/** 64 lowercase hex, the shape of a digest, built without lib/keys. */
export const hex64 = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(''));
