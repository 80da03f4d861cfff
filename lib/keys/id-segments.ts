// The pieces a key's id is made of, each with its validation, its matcher pattern and its label: a definition lists them.
import { KeyError } from './key-error.ts';
import type { HashedSegment } from './hash-segment.ts';
import { HEX64_PATTERN, normalizeUuid, requireEnum, requireHex64, UUID_PATTERN } from './segments.ts';

/**
 * One segment of a key's id (the segments are joined by '.'). `P` is what the builder takes for it: `never` when the
 * builder takes nothing (a fixed word, or the scope's id repeated). `build` validates and returns the text, and throws
 * KeyError naming `param`, never the value.
 */
export interface IdSegment<P = unknown> {
  /** The builder parameter it takes, or undefined for none. */
  readonly param: string | undefined;
  /** Regex source the matcher uses for it (`\k<scopeId>`: the scope's own id). */
  readonly pattern: string;
  /** How docs/keys.md shows it: `<inviteId>`, `all`. */
  readonly label: string;
  build(value: unknown, scopeId: string | undefined): string;
  /** Type only: the parameter's type. */
  readonly _param?: P;
}

/** A UUID, stored lower case. */
export const uuid = (param: string): IdSegment<string> => ({
  param,
  pattern: UUID_PATTERN,
  label: `<${param}>`,
  build: (value) => normalizeUuid(value, param),
});

/** A 64-hex digest the caller computed (sha256Hex of a token): `derivedFrom` says of what, for the docs. */
export const digest = (param: string, derivedFrom: string): IdSegment<string> => ({
  param,
  pattern: HEX64_PATTERN,
  label: `<${derivedFrom}>`,
  build: (value) => requireHex64(value, param),
});

/** A keyed hash of user input (hashSegment), typed so a raw email or IP cannot be passed. */
export const hashed = (param: string, label = param): IdSegment<HashedSegment> => ({
  param,
  pattern: HEX64_PATTERN,
  label: `<${label}>`,
  build: (value) => requireHex64(value, param),
});

/** One word of an allow-list. */
export const oneOf = <const T extends string>(param: string, allowed: readonly T[]): IdSegment<T> => ({
  param,
  pattern: `(?:${allowed.join('|')})`,
  label: `<${param}>`,
  build: (value) => requireEnum(value, allowed, param),
});

/** A non-negative integer up to `max` (decimal, no leading zeros), so the key length stays bounded. */
export const integer = (param: string, max: number, expected: string): IdSegment<number> => ({
  param,
  pattern: `(?:0|[1-9][0-9]{0,${String(max).length - 1}})`,
  label: `<${param}>`,
  build: (value) => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) throw new KeyError(param, expected);
    return String(value);
  },
});

/** A fixed word: nothing of the caller's reaches the key. */
export const word = (text: string): IdSegment<never> => ({ param: undefined, pattern: text, label: text, build: () => text });

/** The scope's id again (an organisation's own index): the matcher's backreference refuses any other id. */
export const scopeIdAgain = (label: string): IdSegment<never> => ({
  param: undefined,
  pattern: '\\k<scopeId>',
  label: `<${label}>`,
  build: (_value, scopeId) => scopeId!,
});

/** The cache generation of an organisation: "0" before any bump, else 32 lowercase hex (lib/runtime/cache). */
export const generation = (): IdSegment<string> => ({
  param: 'generation',
  pattern: '(?:0|[0-9a-f]{32})',
  label: '<generation>',
  build: (value) => {
    if (typeof value !== 'string' || !/^(?:0|[0-9a-f]{32})$/.test(value))
      throw new KeyError('generation', '"0" or 32 lowercase hex characters');
    return value;
  },
});

/** `all` for null (the whole organisation), else a UUID (an Outlet). */
export const uuidOrAll = (param: string): IdSegment<string | null> => ({
  param,
  pattern: `(?:all|${UUID_PATTERN})`,
  label: `<all|${param}>`,
  build: (value) => (value === null ? 'all' : normalizeUuid(value, param)),
});
