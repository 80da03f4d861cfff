// Bearer tokens this isolate already verified, each until its `exp`: a client sends the same access token on every
// request of its lifetime, and its signature, claims and lifetime rules answer the same each time. Only the
// verification is reused; the revocation check still runs on every request. Keyed by the token itself, compared
// whole: a SHA-256 of it through WebCrypto costs Node about as much CPU as the verification it would save (the load
// bench's profile, bench/README.md#cpu-per-request), and a token in this isolate's memory is one its caller sends
// with every request anyway; only tokens that passed verification are kept, so an entry is as long as a real token.
import type { Principal } from './claims.ts';

/** About 4 096 × 1 KB (token and principal) at most: a busy isolate's live tokens, far below any runtime's memory. */
const VERIFIED_TOKENS_CAPACITY = 4_096;

export interface VerifiedTokens {
  /** The principal verified for this token, while it has not expired; a copy each time. */
  get(token: string, nowSeconds: number): Principal | undefined;
  /** Remembers a verified token's principal until its `expiresAt` (the `exp` claim). */
  set(token: string, principal: Principal): void;
}

export function createVerifiedTokens(capacity = VERIFIED_TOKENS_CAPACITY): VerifiedTokens {
  // A Map iterates in insertion order: the first key is the oldest entry, the one evicted when full.
  const entries = new Map<string, Principal>();
  return {
    get(token, nowSeconds) {
      const principal = entries.get(token);
      if (principal === undefined) return undefined;
      // jose refuses a token once `exp <= now`: so does the cache.
      if (principal.expiresAt <= nowSeconds) {
        entries.delete(token);
        return undefined;
      }
      return { ...principal };
    },
    set(token, principal) {
      if (entries.size >= capacity) entries.delete(entries.keys().next().value as string);
      entries.set(token, { ...principal });
    },
  };
}
