// The denylist: revoked sessions and revoked token ids, present until every token they stop has expired, and the
// state that says whether the denylist is whole (written by the repair) with the lock of the repair a request starts.
// All under one hash tag: the check reads an entry and the state in one script, a revocation writes its entries and
// advances the state in one, and a shard's loss of entries is its loss of the state too.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { digest, uuid, word } from '../id-segments.ts';
import { json, lockOwner, marker } from '../key-values.ts';
import { platformTagScope } from '../scopes.ts';

const DENYLIST = platformTagScope('denylist');

/** How long the denylist's state lives without a repair pass refreshing it; every completed pass writes it again. */
export const DENYLIST_STATE_TTL_SECONDS = 86_400;
/** The longest a request-started repair holds its lock: a few task budgets and their overrun, capped here. */
export const DENYLIST_REPAIR_LOCK_MAX_SECONDS = 70;

/** The most revocations a state holds as landed above its applied point while one below is still missing. */
export const DENYLIST_PENDING_MAX = 256;

/**
 * `repairing`: a repair pass with this epoch started after the state was lost and has not covered the window yet;
 * `whole`: a pass with this epoch covered every revocation of the window, so a missing entry means "not revoked".
 * `position` is where the current pass stopped, in (revoked_at, id) order: it lives with the store it describes, so
 * a store that loses its entries loses the position too and the next pass starts from the window's start.
 * `applied` is how far the denylist has come on the revocation clock (migrations/0024): every revocation numbered up to
 * it has its entries here, a contiguous prefix; `pending` holds those that landed above it while one below had not
 * (absent when none); `passClock` is the clock a pass that began on a lost state read first (null otherwise): once the
 * pass has covered the window, every revocation up to it is here.
 */
export const denylistStateSchema = z.lazy(() =>
  z.strictObject({
    state: z.enum(['repairing', 'whole']),
    epoch: z.uuid(),
    sinceMs: z.number().int().nonnegative(),
    position: z.strictObject({ revokedAt: z.iso.datetime({ precision: 6 }), sessionId: z.uuid() }).nullable(),
    applied: z.int().nonnegative(),
    pending: z.array(z.int().positive()).min(1).max(DENYLIST_PENDING_MAX).optional(),
    passClock: z.int().nonnegative().nullable(),
  }),
);
export type DenylistState = z.infer<typeof denylistStateSchema>;

export const revocationKeys = {
  revokedSession: defineKey({
    scope: DENYLIST,
    domain: 'auth',
    purpose: 'revoked-session',
    id: [uuid('sessionId')],
    // The remaining life of the longest-lived token the session can still present (a configurable lifetime).
    ttl: { varies: true },
    value: marker,
  }),
  revokedJti: defineKey({
    scope: DENYLIST,
    domain: 'auth',
    purpose: 'revoked-jti',
    id: [digest('jtiDigest', 'sha256Hex(jti)')],
    // The revoked token's exp minus now.
    ttl: { varies: true },
    value: marker,
  }),
  denylistState: defineKey({
    scope: DENYLIST,
    domain: 'auth',
    purpose: 'denylist-state',
    id: [word('all')],
    ttl: { maxSeconds: DENYLIST_STATE_TTL_SECONDS },
    value: json(denylistStateSchema),
  }),
  denylistRepairLock: defineKey({
    scope: DENYLIST,
    domain: 'auth',
    purpose: 'denylist-repair-lock',
    id: [word('all')],
    ttl: { maxSeconds: DENYLIST_REPAIR_LOCK_MAX_SECONDS },
    value: lockOwner,
  }),
};
