// One case per keyspace builder for the key tests: how to call it, and an oracle for what it must return.
import fc from 'fast-check';
import { RATE_LIMIT_KINDS, THROTTLE_ACTIONS, type KeyName, type Keyspace } from '../../lib/keys/index.ts';
import { hex64, hostileString, looksLikeUuid, maybeUuid, validUuid } from './keys-arbitraries.ts';

export interface ExpectedKey {
  /** Whether the inputs are acceptable, decided without lib/keys. */
  valid: boolean;
  /** `tag`: a platform key under a named hash tag (`platform:{tenant-resolve}`). */
  scope:
    | { kind: 'platform'; tag?: 'tenant-resolve' | 'oidc-callback' | 'sso-handoff' | 'passkey' | 'denylist' }
    | { kind: 'org' | 'outlet' | 'user'; id: string };
  domain: string;
  purpose: string;
  /** The last segment a valid call must produce. */
  id: string;
}

export interface BuilderCase {
  name: KeyName;
  /** Only acceptable inputs. */
  valid: fc.Arbitrary<unknown[]>;
  /** Acceptable and hostile inputs mixed. */
  any: fc.Arbitrary<unknown[]>;
  call(keyspace: Keyspace, args: unknown[]): string;
  expect(args: unknown[]): ExpectedKey;
}

const isHex64 = (value: unknown) => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
const str = (value: unknown) => value as string;
const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : '');
const maybeHex64 = fc.oneof(
  hex64,
  hostileString,
  hex64.map((h) => h.toUpperCase()),
  hex64.map((h) => h.slice(1)),
);

// Builders are called through `any` on purpose: the point is what they do with input the types would refuse.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const loose = (keyspace: Keyspace) => keyspace as any;

function twoIds(name: KeyName, scopeKind: 'org' | 'user', domain: string, purpose: string): BuilderCase {
  return {
    name,
    valid: fc.tuple(validUuid, validUuid),
    any: fc.tuple(maybeUuid, maybeUuid),
    call: (keyspace, [a, b]) => loose(keyspace)[name](a, b),
    expect: ([a, b]) => ({
      valid: looksLikeUuid(str(a)) && looksLikeUuid(str(b)),
      scope: { kind: scopeKind, id: lower(a) },
      domain,
      purpose,
      id: lower(b),
    }),
  };
}

const untaggedScope = fc.oneof(
  fc.constant({ kind: 'platform' as const }),
  fc.record({ kind: fc.constantFrom('org' as const, 'outlet' as const, 'user' as const), id: validUuid }),
);
const validScope = fc.oneof(untaggedScope, fc.constant({ kind: 'platform' as const, tag: 'tenant-resolve' as const }));
const anyScope = fc.oneof(
  validScope,
  fc.record({ kind: fc.constantFrom('org', 'outlet', 'user'), id: maybeUuid }),
  fc.record({ kind: hostileString, id: validUuid }),
  fc.record({ kind: fc.constant('platform'), tag: fc.oneof(hostileString, fc.constant('TENANT-RESOLVE')) }),
  fc.constant(null),
);
const isValidScope = (scope: unknown): boolean => {
  const s = scope as { kind?: unknown; id?: unknown } | null;
  if (s === null || typeof s !== 'object') return false;
  if (s.kind === 'platform')
    return !('tag' in s) || (s as { tag?: unknown }).tag === undefined || (s as { tag?: unknown }).tag === 'tenant-resolve';
  return (s.kind === 'org' || s.kind === 'outlet' || s.kind === 'user') && typeof s.id === 'string' && looksLikeUuid(s.id);
};
const scopeOf = (scope: unknown): ExpectedKey['scope'] => {
  const s = scope as { kind: 'platform'; tag?: 'tenant-resolve' } | { kind: 'org' | 'outlet' | 'user'; id: string };
  if (s.kind !== 'platform') return { kind: s.kind, id: lower(s.id) };
  return s.tag === undefined ? { kind: 'platform' } : { kind: 'platform', tag: s.tag };
};

const RESOLVE = { kind: 'platform', tag: 'tenant-resolve' } as const;
const DENYLIST = { kind: 'platform', tag: 'denylist' } as const;
const generation = fc.oneof(
  fc.constant('0'),
  hex64.map((h) => h.slice(0, 32)),
);
const anyGeneration = fc.oneof(
  generation,
  hostileString,
  generation.map((g) => g.toUpperCase()),
  fc.constant('00'),
  fc.constant(0),
);
const isGeneration = (value: unknown) => typeof value === 'string' && /^(?:0|[0-9a-f]{32})$/.test(value);

const windowStart = fc.oneof(fc.integer({ min: 0, max: 9_999_999_999 }), fc.constant(0), fc.constant(9_999_999_999));
const anyWindowStart = fc.oneof(
  windowStart,
  fc.constant(10_000_000_000),
  fc.integer({ min: -1_000, max: -1 }),
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, '1700000000', 1.5),
);

const totpStep = fc.oneof(fc.integer({ min: 0, max: 99_999_999_999 }), fc.constant(0), fc.constant(57_766_666));
const anyTotpStep = fc.oneof(
  totpStep,
  fc.constant(100_000_000_000),
  fc.integer({ min: -1_000, max: -1 }),
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, '57766666', 1.5, null),
);

export const BUILDER_CASES: BuilderCase[] = [
  twoIds('inviteObject', 'org', 'invite', 'object'),
  {
    name: 'inviteActiveByOrg',
    valid: fc.tuple(validUuid),
    any: fc.tuple(maybeUuid),
    call: (keyspace, [org]) => loose(keyspace).inviteActiveByOrg(org),
    expect: ([org]) => ({
      valid: looksLikeUuid(str(org)),
      scope: { kind: 'org', id: lower(org) },
      domain: 'invite',
      purpose: 'active-by-org',
      id: lower(org),
    }),
  },
  {
    name: 'inviteActiveByEmailHash',
    valid: fc.tuple(validUuid, hex64),
    any: fc.tuple(maybeUuid, maybeHex64),
    call: (keyspace, [org, hash]) => loose(keyspace).inviteActiveByEmailHash(org, hash),
    expect: ([org, hash]) => ({
      valid: looksLikeUuid(str(org)) && isHex64(hash),
      scope: { kind: 'org', id: lower(org) },
      domain: 'invite',
      purpose: 'active-by-email-hash',
      id: str(hash),
    }),
  },
  {
    name: 'inviteEmailIndexesByOrg',
    valid: fc.tuple(validUuid),
    any: fc.tuple(maybeUuid),
    call: (keyspace, [org]) => loose(keyspace).inviteEmailIndexesByOrg(org),
    expect: ([org]) => ({
      valid: looksLikeUuid(str(org)),
      scope: { kind: 'org', id: lower(org) },
      domain: 'invite',
      purpose: 'email-indexes-by-org',
      id: lower(org),
    }),
  },
  twoIds('inviteReceipt', 'org', 'invite', 'receipt'),
  {
    name: 'inviteReceiptsByOrg',
    valid: fc.tuple(validUuid),
    any: fc.tuple(maybeUuid),
    call: (keyspace, [org]) => loose(keyspace).inviteReceiptsByOrg(org),
    expect: ([org]) => ({
      valid: looksLikeUuid(str(org)),
      scope: { kind: 'org', id: lower(org) },
      domain: 'invite',
      purpose: 'receipts-by-org',
      id: lower(org),
    }),
  },
  twoIds('syrveRuntimeToken', 'org', 'syrve', 'runtime-token'),
  twoIds('syrveRuntimeTokenRefreshLock', 'org', 'syrve', 'runtime-token-refresh-lock'),
  twoIds('syrveReconnectFailures', 'org', 'syrve', 'reconnect-failures'),
  twoIds('syrveCredentialVersion', 'org', 'syrve', 'credential-version'),
  twoIds('webhookDeliveryLease', 'org', 'webhook', 'delivery-lease'),
  twoIds('mfaChallenge', 'user', 'mfa', 'challenge'),
  {
    name: 'mfaTotpUsed',
    valid: fc.tuple(validUuid, totpStep),
    any: fc.tuple(maybeUuid, anyTotpStep),
    call: (keyspace, [userId, step]) => loose(keyspace).mfaTotpUsed(userId, step),
    expect: ([userId, step]) => ({
      valid: looksLikeUuid(str(userId)) && Number.isSafeInteger(step) && (step as number) >= 0 && (step as number) <= 99_999_999_999,
      scope: { kind: 'user', id: lower(userId) },
      domain: 'mfa',
      purpose: 'totp-used',
      id: String(step),
    }),
  },
  twoIds('authSessionState', 'user', 'auth', 'session-state'),
  twoIds('mfaEnrolment', 'user', 'mfa', 'enrolment'),
  twoIds('activeContext', 'user', 'context', 'active'),
  {
    name: 'apiKeyEntry',
    valid: fc.tuple(validUuid, hex64),
    any: fc.tuple(maybeUuid, maybeHex64),
    call: (keyspace, [org, digest]) => loose(keyspace).apiKeyEntry(org, digest),
    expect: ([org, digest]) => ({
      valid: looksLikeUuid(str(org)) && isHex64(digest),
      scope: { kind: 'org', id: lower(org) },
      domain: 'auth',
      purpose: 'api-key',
      id: str(digest),
    }),
  },
  {
    name: 'activeContextIndex',
    valid: fc.tuple(validUuid),
    any: fc.tuple(maybeUuid),
    call: (keyspace, [user]) => loose(keyspace).activeContextIndex(user),
    expect: ([user]) => ({
      valid: looksLikeUuid(str(user)),
      scope: { kind: 'user', id: lower(user) },
      domain: 'context',
      purpose: 'active-by-user',
      id: lower(user),
    }),
  },
  {
    name: 'throttleCounter',
    valid: fc.tuple(validScope, fc.constantFrom(...THROTTLE_ACTIONS), hex64, windowStart),
    any: fc.tuple(anyScope, fc.oneof(fc.constantFrom(...THROTTLE_ACTIONS), hostileString), maybeHex64, anyWindowStart),
    call: (keyspace, [scope, action, subject, start]) => loose(keyspace).throttleCounter(scope, action, subject, start),
    expect: ([scope, action, subject, start]) => ({
      valid:
        isValidScope(scope) &&
        (THROTTLE_ACTIONS as readonly unknown[]).includes(action) &&
        isHex64(subject) &&
        Number.isSafeInteger(start) &&
        (start as number) >= 0 &&
        (start as number) <= 9_999_999_999,
      scope: isValidScope(scope) ? scopeOf(scope) : { kind: 'platform' },
      domain: 'throttle',
      purpose: 'counter',
      id: `${str(action)}.${str(subject)}.${String(start)}`,
    }),
  },
  {
    name: 'jobCache',
    valid: fc.tuple(untaggedScope, validUuid),
    any: fc.tuple(anyScope, maybeUuid),
    call: (keyspace, [scope, jobId]) => loose(keyspace).jobCache(scope, jobId),
    expect: ([scope, jobId]) => ({
      // Only the throttle counter may live under a named platform hash tag.
      valid: isValidScope(scope) && (scope as { tag?: unknown }).tag === undefined && looksLikeUuid(str(jobId)),
      scope: isValidScope(scope) ? scopeOf(scope) : { kind: 'platform' },
      domain: 'job',
      purpose: 'cache',
      id: lower(jobId),
    }),
  },
  {
    name: 'revokedSession',
    valid: fc.tuple(validUuid),
    any: fc.tuple(maybeUuid),
    call: (keyspace, [sessionId]) => loose(keyspace).revokedSession(sessionId),
    expect: ([sessionId]) => ({
      valid: looksLikeUuid(str(sessionId)),
      scope: DENYLIST,
      domain: 'auth',
      purpose: 'revoked-session',
      id: lower(sessionId),
    }),
  },
  {
    name: 'revokedJti',
    valid: fc.tuple(hex64),
    any: fc.tuple(maybeHex64),
    call: (keyspace, [digest]) => loose(keyspace).revokedJti(digest),
    expect: ([digest]) => ({
      valid: isHex64(digest),
      scope: DENYLIST,
      domain: 'auth',
      purpose: 'revoked-jti',
      id: str(digest),
    }),
  },
  ...(['passwordResetToken', 'ssoHandoffCode', 'oidcState', 'consoleDevLogin'] as const).map((name) => ({
    name,
    valid: fc.tuple(hex64),
    any: fc.tuple(maybeHex64),
    call: (keyspace: Keyspace, [digest]: unknown[]) => loose(keyspace)[name](digest),
    expect: ([digest]: unknown[]) => ({
      valid: isHex64(digest),
      // The OIDC states and handoff codes live beside the per-address counter their consume script counts.
      scope:
        name === 'oidcState'
          ? { kind: 'platform' as const, tag: 'oidc-callback' as const }
          : name === 'ssoHandoffCode'
            ? { kind: 'platform' as const, tag: 'sso-handoff' as const }
            : { kind: 'platform' as const },
      domain: 'auth',
      purpose: {
        passwordResetToken: 'password-reset',
        ssoHandoffCode: 'sso-handoff',
        oidcState: 'oidc-state',
        consoleDevLogin: 'console-dev-login',
      }[name],
      id: str(digest),
    }),
  })),
  {
    name: 'passkeyChallenge',
    valid: fc.tuple(hex64),
    any: fc.tuple(maybeHex64),
    call: (keyspace, [digest]) => loose(keyspace).passkeyChallenge(digest),
    expect: ([digest]) => ({
      valid: isHex64(digest),
      // Beside the per-address counters its issue and consume scripts count.
      scope: { kind: 'platform', tag: 'passkey' },
      domain: 'auth',
      purpose: 'passkey-challenge',
      id: str(digest),
    }),
  },
  ...(['tenantResolveSlug', 'tenantResolveDomain'] as const).map((name) => ({
    name,
    valid: fc.tuple(hex64),
    any: fc.tuple(maybeHex64),
    call: (keyspace: Keyspace, [hash]: unknown[]) => loose(keyspace)[name](hash),
    expect: ([hash]: unknown[]) => ({
      valid: isHex64(hash),
      scope: RESOLVE,
      domain: 'tenant',
      purpose: name === 'tenantResolveSlug' ? 'resolve-slug' : 'resolve-domain',
      id: str(hash),
    }),
  })),
  ...(['tenantResolveSlugMisses', 'tenantResolveDomainMisses'] as const).map((name) => ({
    name,
    valid: fc.tuple(),
    any: fc.tuple(),
    call: (keyspace: Keyspace) => loose(keyspace)[name](),
    expect: () => ({
      valid: true,
      scope: RESOLVE,
      domain: 'tenant',
      purpose: name === 'tenantResolveSlugMisses' ? 'resolve-slug-misses' : 'resolve-domain-misses',
      id: 'all',
    }),
  })),
  {
    name: 'tenantResolveGeneration',
    valid: fc.tuple(),
    any: fc.tuple(),
    call: (keyspace) => loose(keyspace).tenantResolveGeneration(),
    expect: () => ({ valid: true, scope: RESOLVE, domain: 'tenant', purpose: 'resolve-generation', id: 'all' }),
  },
  {
    name: 'orgCacheGeneration',
    valid: fc.tuple(validUuid),
    any: fc.tuple(maybeUuid),
    call: (keyspace, [org]) => loose(keyspace).orgCacheGeneration(org),
    expect: ([org]) => ({
      valid: looksLikeUuid(str(org)),
      scope: { kind: 'org', id: lower(org) },
      domain: 'cache',
      purpose: 'generation',
      id: lower(org),
    }),
  },
  {
    name: 'orgSettingsCache',
    valid: fc.tuple(validUuid, generation),
    any: fc.tuple(maybeUuid, anyGeneration),
    call: (keyspace, [org, gen]) => loose(keyspace).orgSettingsCache(org, gen),
    expect: ([org, gen]) => ({
      valid: looksLikeUuid(str(org)) && isGeneration(gen),
      scope: { kind: 'org', id: lower(org) },
      domain: 'cache',
      purpose: 'settings',
      id: str(gen),
    }),
  },
  {
    name: 'orgPlanLimitsCache',
    valid: fc.tuple(validUuid, generation),
    any: fc.tuple(maybeUuid, anyGeneration),
    call: (keyspace, [org, gen]) => loose(keyspace).orgPlanLimitsCache(org, gen),
    expect: ([org, gen]) => ({
      valid: looksLikeUuid(str(org)) && isGeneration(gen),
      scope: { kind: 'org', id: lower(org) },
      domain: 'cache',
      purpose: 'rate-limits',
      id: str(gen),
    }),
  },
  {
    name: 'rateLimitCounter',
    valid: fc.tuple(untaggedScope, fc.constantFrom(...RATE_LIMIT_KINDS), hex64, windowStart),
    any: fc.tuple(anyScope, fc.oneof(fc.constantFrom(...RATE_LIMIT_KINDS), hostileString), maybeHex64, anyWindowStart),
    call: (keyspace, [scope, kind, subject, window]) => loose(keyspace).rateLimitCounter(scope, kind, subject, window),
    expect: ([scope, kind, subject, window]) => ({
      // A plain scope only: no named platform hash tag.
      valid:
        isValidScope(scope) &&
        (scope as { tag?: unknown }).tag === undefined &&
        (RATE_LIMIT_KINDS as readonly unknown[]).includes(kind) &&
        isHex64(subject) &&
        Number.isSafeInteger(window) &&
        (window as number) >= 0 &&
        (window as number) <= 9_999_999_999,
      scope: isValidScope(scope) ? scopeOf(scope) : { kind: 'platform' },
      domain: 'ratelimit',
      purpose: 'counter',
      id: `${str(kind)}.${str(subject)}.${String(window)}`,
    }),
  },
  {
    name: 'orgMemberCountCache',
    valid: fc.tuple(validUuid, generation, fc.oneof(fc.constant(null), validUuid)),
    any: fc.tuple(maybeUuid, anyGeneration, fc.oneof(fc.constant(null), maybeUuid, fc.constant(undefined))),
    call: (keyspace, [org, gen, location]) => loose(keyspace).orgMemberCountCache(org, gen, location),
    expect: ([org, gen, location]) => ({
      valid:
        looksLikeUuid(str(org)) && isGeneration(gen) && (location === null || (typeof location === 'string' && looksLikeUuid(location))),
      scope: { kind: 'org', id: lower(org) },
      domain: 'cache',
      purpose: 'member-count',
      id: `${str(gen)}.${location === null ? 'all' : lower(location)}`,
    }),
  },
  {
    name: 'cronRunLock',
    // No input at all: the id is the fixed `all`.
    valid: fc.tuple(),
    any: fc.tuple(),
    call: (keyspace) => loose(keyspace).cronRunLock(),
    expect: () => ({ valid: true, scope: { kind: 'platform' }, domain: 'cron', purpose: 'run-lock', id: 'all' }),
  },
  {
    name: 'denylistState',
    valid: fc.tuple(),
    any: fc.tuple(),
    call: (keyspace) => loose(keyspace).denylistState(),
    expect: () => ({ valid: true, scope: DENYLIST, domain: 'auth', purpose: 'denylist-state', id: 'all' }),
  },
  {
    name: 'denylistRepairLock',
    valid: fc.tuple(),
    any: fc.tuple(),
    call: (keyspace) => loose(keyspace).denylistRepairLock(),
    expect: () => ({ valid: true, scope: DENYLIST, domain: 'auth', purpose: 'denylist-repair-lock', id: 'all' }),
  },
];
