// The invite keys: the invite object, its indexes and the receipt an accept, register or cancel leaves, with their TTLs and values.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { hashed, scopeIdAgain, uuid } from '../id-segments.ts';
import { HEX64_MEMBER, json, sortedSet, UUID_N_MEMBER } from '../key-values.ts';
import { orgScope } from '../scopes.ts';
import { ROLE_CODES } from './role-codes.ts';

/** An invite lives exactly 3 hours from creation; only APP_ENV=test may shorten it (lib/config/load.ts). */
export const INVITE_TTL_SECONDS = 10_800;
/** How long an accept's or cancel's receipt outlives the consumed invite: the caller's retry and many reconciliation runs fit. */
export const INVITE_RECEIPT_TTL_SECONDS = 3_600;

const HEX64 = /^[0-9a-f]{64}$/;

export const inviteRecordSchema = z.lazy(() =>
  z.strictObject({
    inviteId: z.uuid(),
    storageOrganizationId: z.uuid(),
    organizationId: z.uuid(),
    locationId: z.uuid().nullable(),
    normalizedEmail: z.email(),
    emailHash: z.string().regex(HEX64),
    tokenHash: z.string().regex(HEX64),
    roleCode: z.enum(ROLE_CODES),
    createdByUserId: z.uuid(),
    createdAtUtc: z.iso.datetime(),
    expiresAtUtc: z.iso.datetime(),
    correlationId: z.string().min(1).max(128),
    isActive: z.literal(true),
    expiresAtUnixSeconds: z.number().int().positive(),
    /** How the token reached the invitee: by the notifier ('email') or in the create answer ('none'; absent on older invites). */
    delivery: z.enum(['email', 'none']).optional(),
  }),
);
export type InviteRecord = z.infer<typeof inviteRecordSchema>;

export const inviteReceiptSchema = z.lazy(() =>
  z.strictObject({
    kind: z.enum(['accept', 'cancel', 'register']),
    /** The accepting user, the admin who cancelled, or the id a newcomer's account is created with (register). */
    actorUserId: z.uuid(),
    /** Names this consumption, so a late compensation of an earlier attempt never touches a newer one. */
    attempt: z.uuid(),
    correlationId: z.string().min(1).max(128),
    consumedAtMs: z.number().int().nonnegative(),
    /** The invite object exactly as it was stored (its token hash, never the token). */
    invite: z.string(),
    /** Set when an admin cancels while this accept is unfinished: the cancel owns the outcome, nothing gives the invite back. */
    cancelRequestedBy: z.uuid().optional(),
    /** The organisation's API key that cancelled (kind 'cancel'), when one did: its audit row names the key. */
    actorApiKeyId: z.uuid().optional(),
    /** The key beside cancelRequestedBy, when a key asked for that cancel. */
    cancelRequestedByApiKey: z.uuid().optional(),
    /** A cancel no admin asked for: the invite's creator was removed from the organisation (lib/runtime/invites/cancel-creator-invites.ts). */
    cancelReason: z.enum(['member-removed']).optional(),
  }),
);
export type InviteReceipt = z.infer<typeof inviteReceiptSchema>;

/** A live receipt: its `invite` string must be an invite object too (readers parse it only when they need it). */
const storedReceiptSchema = z.lazy(() =>
  inviteReceiptSchema.superRefine((receipt, context) => {
    let invite: unknown;
    try {
      invite = JSON.parse(receipt.invite);
    } catch {
      invite = undefined;
    }
    if (!inviteRecordSchema.safeParse(invite).success)
      context.addIssue({ code: 'custom', path: ['invite'], message: 'not an invite object' });
  }),
);

const inviteIds = sortedSet(UUID_N_MEMBER, 'invite ids in UUID "N" form', 'unix-seconds');

export const inviteKeys = {
  inviteObject: defineKey({
    scope: orgScope,
    domain: 'invite',
    purpose: 'object',
    id: [uuid('inviteId')],
    ttl: { seconds: INVITE_TTL_SECONDS },
    value: json(inviteRecordSchema),
  }),
  inviteActiveByOrg: defineKey({
    scope: orgScope,
    domain: 'invite',
    purpose: 'active-by-org',
    id: [scopeIdAgain('orgId')],
    ttl: { maxSeconds: INVITE_TTL_SECONDS },
    value: inviteIds,
  }),
  inviteActiveByEmailHash: defineKey({
    scope: orgScope,
    domain: 'invite',
    purpose: 'active-by-email-hash',
    id: [hashed('emailHash')],
    ttl: { maxSeconds: INVITE_TTL_SECONDS },
    value: inviteIds,
  }),
  inviteEmailIndexesByOrg: defineKey({
    scope: orgScope,
    domain: 'invite',
    purpose: 'email-indexes-by-org',
    id: [scopeIdAgain('orgId')],
    ttl: { maxSeconds: INVITE_TTL_SECONDS },
    value: sortedSet(HEX64_MEMBER, 'email hashes (64 hex)', 'unix-seconds'),
  }),
  inviteReceipt: defineKey({
    scope: orgScope,
    domain: 'invite',
    purpose: 'receipt',
    id: [uuid('inviteId')],
    ttl: { seconds: INVITE_RECEIPT_TTL_SECONDS },
    value: json(storedReceiptSchema),
  }),
  inviteReceiptsByOrg: defineKey({
    scope: orgScope,
    domain: 'invite',
    purpose: 'receipts-by-org',
    id: [scopeIdAgain('orgId')],
    ttl: { maxSeconds: INVITE_RECEIPT_TTL_SECONDS },
    value: inviteIds,
  }),
};
