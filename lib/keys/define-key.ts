// One key's declaration: scope, domain, purpose, id segments, TTL and value; the builder's type follows from it.
import type { IdSegment } from './id-segments.ts';
import type { KeyValue } from './key-values.ts';
import type { ScopeRule } from './scopes.ts';

/** Exactly this long from the write; at most this long (it varies); or set by the writer from data (no fixed bound). */
export type KeyTtl =
  | { readonly seconds: number; readonly maxSeconds?: never; readonly varies?: never }
  | { readonly maxSeconds: number; readonly seconds?: never; readonly varies?: never }
  | { readonly varies: true; readonly seconds?: never; readonly maxSeconds?: never };

export interface KeyDefinition<S extends ScopeRule = ScopeRule, I extends readonly IdSegment[] = readonly IdSegment[]> {
  readonly scope: S;
  /** The area the key belongs to: `invite`, `syrve`, `auth`. */
  readonly domain: string;
  /** What the key is for inside its domain: `object`, `active-by-org`. */
  readonly purpose: string;
  /** The id's segments, joined by '.'. */
  readonly id: I;
  readonly ttl: KeyTtl;
  readonly value: KeyValue;
  /** A shape reserved with no writer yet: the audit knows it, the keyspace has no builder for it. */
  readonly dataOnly?: true;
}

// `any`: a definition's scope and segments each carry their own parameter type.
/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyDefinition = KeyDefinition<ScopeRule<any>, readonly IdSegment<any>[]>;

/** Freezes a definition and keeps its literal type, so its builder's parameters and `dataOnly` reach the keyspace's type. */
export function defineKey<const D extends AnyDefinition>(definition: D): D {
  return Object.freeze(definition);
}

type ParamOf<T> = [T] extends [never] ? [] : [T];
type IdParams<I> = I extends readonly [infer Head, ...infer Rest]
  ? [...(Head extends IdSegment<infer P> ? ParamOf<P> : never), ...IdParams<Rest>]
  : [];

/** The keyspace builder a definition gives: the scope's parameter (if any), then one per id segment that takes one. */
export type BuilderOf<D> = D extends { scope: ScopeRule<infer S>; id: infer I }
  ? (...args: [...ParamOf<S>, ...IdParams<I>]) => string
  : never;
/* eslint-enable @typescript-eslint/no-explicit-any */
