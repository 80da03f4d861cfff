// Bearer tokens this isolate already verified, by the SHA-256 of the token, each until its `exp`: a client sends the
// same access token on every request of its lifetime, and its signature, claims and lifetime rules answer the same
// each time. Only the verification is reused; the revocation check still runs on every request.
import type { Principal } from './claims.ts';

/** About 4 096 × 200 bytes at most: a busy isolate's live tokens, far below any runtime's memory. */
export const VERIFIED_TOKENS_CAPACITY = 4_096;

export interface VerifiedTokens {
  /** The principal verified for this digest, while the token has not expired; a copy each time. */
  get(digest: string, nowSeconds: number): Principal | undefined;
  /** Remembers a verified token's principal until its `expiresAt` (the `exp` claim). */
  set(digest: string, principal: Principal): void;
}

export function createVerifiedTokens(capacity = VERIFIED_TOKENS_CAPACITY): VerifiedTokens {
  // A Map iterates in insertion order: the first key is the oldest entry, the one evicted when full.
  const entries = new Map<string, Principal>();
  return {
    get(digest, nowSeconds) {
      const principal = entries.get(digest);
      if (principal === undefined) return undefined;
      // jose refuses a token once `exp <= now`: so does the cache.
      if (principal.expiresAt <= nowSeconds) {
        entries.delete(digest);
        return undefined;
      }
      return { ...principal };
    },
    set(digest, principal) {
      if (entries.size >= capacity) entries.delete(entries.keys().next().value as string);
      entries.set(digest, { ...principal });
    },
  };
}
