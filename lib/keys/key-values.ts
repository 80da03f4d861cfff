// What a key holds, as data a keyspace audit can check: a zod schema for JSON, a shape for markers, counters and set members.
import type * as z from 'zod';

export type KeyValue =
  | { readonly type: 'json'; readonly schema: z.ZodType }
  | { readonly type: 'string'; readonly pattern: RegExp; readonly what: string }
  | { readonly type: 'counter' }
  | { readonly type: 'marker' }
  /** `scores`: unix seconds (an expiry, or when a member was written), or any number. */
  | { readonly type: 'sorted-set'; readonly member: RegExp; readonly what: string; readonly scores: 'unix-seconds' | 'number' };

/**
 * A JSON document its writer encodes with `schema` and its readers decode with it. The schema is a `z.lazy`, built on
 * its first parse: every cold start evaluates lib/keys/defs (createDeps and lib/config import the keys), and few
 * requests read any one value (docs/design/layers.md, "What a cold start evaluates").
 */
export const json = (schema: z.ZodLazy): KeyValue => ({ type: 'json', schema });
/** A plain string of this shape. */
export const text = (pattern: RegExp, what: string): KeyValue => ({ type: 'string', pattern, what });
/** A random lock owner id (128 bits, hex), compared before the owner deletes the lock. */
export const lockOwner: KeyValue = text(/^[0-9a-f]{32}$/, 'a lock owner (128 bits, hex)');
/** A non-negative integer that INCR, or a script, keeps. */
export const counter: KeyValue = { type: 'counter' };
/** '1': only the key's existence is read. */
export const marker: KeyValue = { type: 'marker' };
export const sortedSet = (member: RegExp, what: string, scores: 'unix-seconds' | 'number'): KeyValue => ({
  type: 'sorted-set',
  member,
  what,
  scores,
});

/** The members of the invite indexes: invite ids in UUID "N" form. */
export const UUID_N_MEMBER = /^[0-9a-f]{32}$/;
export const HEX64_MEMBER = /^[0-9a-f]{64}$/;
