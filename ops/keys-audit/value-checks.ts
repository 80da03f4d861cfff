// What a live value of each registry row must look like: the zod schema its writer encodes with, or a shape check for
// markers, counters, lock owners and index members. Every row has one through its value type at least.
import * as z from 'zod';
import type { KeyName, RegistryEntry } from '../../lib/keys/registry.ts';
import { oidcStateSchema } from '../../lib/auth/oidc/oidc-state.ts';
import { handoffSchema } from '../../lib/auth/handoff/handoff-code.ts';
import { resetSchema } from '../../lib/auth/password-reset/reset-token.ts';
import { devLoginSchema } from '../../lib/console/dev-login.ts';
import { activeContextSchema } from '../../lib/auth/context/context-record.ts';
import { inviteRecordSchema } from '../../lib/runtime/invites/invite-record.ts';
import { inviteReceiptSchema } from '../../lib/runtime/invites/receipt.ts';
import { jobCacheSchema } from '../../lib/runtime/jobs/job-cache.ts';
import { challengeRecord, sessionStateRecord } from '../../lib/auth/mfa/challenge-record.ts';
import { sessionRecordSchema } from '../../lib/runtime/syrve/session-record.ts';
import { memberCountSchema } from '../../lib/runtime/tenants/member-count.ts';
import { orgSettingsSchema } from '../../lib/runtime/tenants/org-settings.ts';
import { publicTenantSchema } from '../../lib/runtime/tenants/public-tenant.ts';

export type ValueCheck =
  | { kind: 'json'; schema: z.ZodType }
  | { kind: 'text'; pattern: RegExp; what: string }
  | { kind: 'zset'; member: RegExp; what: string; unixSeconds: boolean };

/** The Redis TYPE a row's values have. */
export function redisTypeOf(entry: RegistryEntry): 'zset' | 'string' {
  return entry.valueType === 'sorted-set' ? 'zset' : 'string';
}

const json = (schema: z.ZodType): ValueCheck => ({ kind: 'json', schema });
const UUID_N = /^[0-9a-f]{32}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const OWNER = { kind: 'text', pattern: /^[0-9a-f]{32}$/, what: 'a lock owner (128 bits, hex)' } as const;
// Every invite index scores its members by unix seconds (an expiry, or when a receipt was written).
const index = (member: RegExp, what: string): ValueCheck => ({ kind: 'zset', member, what, unixSeconds: true });

/** A receipt carries the consumed invite object as a string; it must be one. */
const receiptCheck = inviteReceiptSchema.superRefine((receipt, context) => {
  let invite: unknown;
  try {
    invite = JSON.parse(receipt.invite);
  } catch {
    invite = undefined;
  }
  if (!inviteRecordSchema.safeParse(invite).success)
    context.addIssue({ code: 'custom', path: ['invite'], message: 'not an invite object' });
});

/** Rows whose writer gives a sharper rule than their value type. */
const BY_ROW: Partial<Record<KeyName, ValueCheck>> = {
  inviteObject: json(inviteRecordSchema),
  inviteReceipt: json(receiptCheck),
  inviteActiveByOrg: index(UUID_N, 'invite ids in UUID "N" form'),
  inviteActiveByEmailHash: index(UUID_N, 'invite ids in UUID "N" form'),
  inviteReceiptsByOrg: index(UUID_N, 'invite ids in UUID "N" form'),
  inviteEmailIndexesByOrg: index(HEX64, 'email hashes (64 hex)'),
  syrveRuntimeToken: json(sessionRecordSchema),
  syrveRuntimeTokenRefreshLock: OWNER,
  cronRunLock: OWNER,
  mfaChallenge: json(challengeRecord),
  authSessionState: json(sessionStateRecord),
  activeContext: json(activeContextSchema),
  jobCache: json(jobCacheSchema),
  passwordResetToken: json(resetSchema),
  ssoHandoffCode: json(handoffSchema),
  oidcState: json(oidcStateSchema),
  consoleDevLogin: json(devLoginSchema),
  tenantResolveSlug: json(publicTenantSchema),
  tenantResolveDomain: json(publicTenantSchema),
  orgSettingsCache: json(orgSettingsSchema),
  orgMemberCountCache: json(memberCountSchema),
  // Data-only rows (no writer yet): the shape their registry rows document, so a value planted there is still judged.
  refPlanStatuses: json(z.array(z.strictObject({ code: z.string().min(1).max(64), label: z.string().max(200) })).max(100)),
  sysHealthLastCheck: json(z.strictObject({ checkedAtUtc: z.iso.datetime(), stores: z.record(z.string(), z.enum(['ok', 'down'])) })),
};

/**
 * The row's own check, else the one its value type implies, so a row added later is still shape-checked: JSON that
 * parses, an integer, the marker, printable set members; a plain string only if it is printable.
 */
export function valueCheckFor(entry: RegistryEntry): ValueCheck {
  const own = BY_ROW[entry.name];
  if (own !== undefined) return own;
  switch (entry.valueType) {
    case 'json':
      return json(z.unknown());
    case 'counter':
      return { kind: 'text', pattern: /^(?:0|[1-9][0-9]{0,17})$/, what: 'a non-negative integer' };
    case 'marker':
      return { kind: 'text', pattern: /^1$/, what: "the marker '1'" };
    case 'sorted-set':
      return { kind: 'zset', member: /^[\x21-\x7e]{1,200}$/, what: 'printable members', unixSeconds: false };
    case 'string':
      return { kind: 'text', pattern: /^[\x20-\x7e]*$/, what: 'printable text' };
  }
}

/** False for a row checked only by its value type: the audit lists them, so a JSON row without its schema shows. */
export function hasOwnCheck(name: KeyName): boolean {
  return BY_ROW[name] !== undefined;
}

/** Why a string value fails, in words that never quote it (a zod path at most), or undefined when it passes. */
export function stringValueProblem(check: ValueCheck, raw: string): string | undefined {
  if (check.kind === 'zset') return 'a string where a sorted set belongs';
  if (check.kind === 'text') return check.pattern.test(raw) ? undefined : `not ${check.what}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'not JSON';
  }
  const result = check.schema.safeParse(parsed);
  if (result.success) return undefined;
  const paths = result.error.issues.map((issue) => (issue.path.length === 0 ? '(root)' : issue.path.join('.')));
  return `fails its schema at ${[...new Set(paths)].slice(0, 3).join(', ')}`;
}

/** Why a sorted set's sampled members and scores fail, or undefined. `flat` is ZRANGE … WITHSCORES. */
export function zsetValueProblem(check: ValueCheck, flat: string[]): string | undefined {
  if (check.kind !== 'zset') return 'a sorted set where a string belongs';
  for (let at = 0; at < flat.length; at += 2) {
    if (!check.member.test(flat[at] ?? '')) return `a member is not one of ${check.what}`;
    const score = flat[at + 1] ?? '';
    if (check.unixSeconds ? !/^(?:0|[1-9][0-9]{0,11})$/.test(score) : Number.isNaN(Number(score))) {
      return check.unixSeconds ? 'a score is not unix seconds' : 'a score is not a number';
    }
  }
  return undefined;
}
