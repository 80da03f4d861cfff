// Typed key builders, one per registry entry, bound to a `{prefix}:{env}` namespace.
import { KeyError } from './key-error.ts';
import type { HashedSegment } from './hash-segment.ts';
import {
  parseNamespace,
  PLATFORM_TAGS,
  SCOPE_KINDS,
  THROTTLE_ACTIONS,
  type KeyEnv,
  type PlatformTag,
  type ThrottleAction,
} from './namespace.ts';
import type { DataOnlyKeyName, KeyName } from './registry.ts';
import { normalizeUuid, requireEnum, requireHex64 } from './segments.ts';

/** Keys stay under this many characters (docs/design/keys.md#keys). */
export const MAX_KEY_LENGTH = 200;

/** Largest window start accepted (unix seconds, 10 digits): keeps the throttle key length bounded. */
const MAX_WINDOW_START_SECONDS = 9_999_999_999;

/** `tag` puts a platform key under a named hash tag (`platform:{tenant-resolve}`); without it a platform key has none. */
type KeyScope = { kind: 'platform'; tag?: PlatformTag } | { kind: 'org' | 'outlet' | 'user'; id: string };

/** The cache generation of an organisation: "0" before any bump, else 32 lowercase hex (lib/runtime/cache). */
const GENERATION = /^(?:0|[0-9a-f]{32})$/;

/** The org cache entries whose keys a Lua script completes with the generation it read (orgCacheEntryPrefix). */
export type OrgCacheResource = 'settings' | 'member-count';

type Builders = {
  inviteObject(orgId: string, inviteId: string): string;
  inviteActiveByOrg(orgId: string): string;
  inviteActiveByEmailHash(orgId: string, emailHash: HashedSegment): string;
  inviteEmailIndexesByOrg(orgId: string): string;
  inviteReceipt(orgId: string, inviteId: string): string;
  inviteReceiptsByOrg(orgId: string): string;
  syrveRuntimeToken(orgId: string, connectionId: string): string;
  syrveRuntimeTokenRefreshLock(orgId: string, connectionId: string): string;
  syrveReconnectFailures(orgId: string, connectionId: string): string;
  syrveCredentialVersion(orgId: string, connectionId: string): string;
  // Sign-in's user-scoped state: MFA challenges, the half-finished login, the active organisation and outlet.
  mfaChallenge(userId: string, challengeId: string): string;
  /** The TOTP replay guard of one RFC 6238 step (unix seconds / 30) of this user. */
  mfaTotpUsed(userId: string, totpStep: number): string;
  authSessionState(userId: string, sessionStateId: string): string;
  activeContext(userId: string, sessionId: string): string;
  // Every throttle: invite create and accept, login, MFA verify, password reset and tenant resolution.
  /** Window id `{action}.{subject}.{windowStartSeconds}`; see THROTTLE_WINDOW_ID_PATTERN in the registry. */
  throttleCounter(scope: KeyScope, action: ThrottleAction, subject: HashedSegment, windowStartSeconds: number): string;
  jobCache(scope: Exclude<KeyScope, { tag?: PlatformTag }> | { kind: 'platform' }, jobId: string): string;
  revokedSession(sessionId: string): string;
  /** `jtiDigest` is sha256Hex(jti): 64 lowercase hex. */
  revokedJti(jtiDigest: string): string;
  /** Single-use tokens, keyed by sha256Hex(token): 64 lowercase hex. */
  passwordResetToken(tokenDigest: string): string;
  ssoHandoffCode(codeDigest: string): string;
  oidcState(stateDigest: string): string;
  consoleDevLogin(codeDigest: string): string;
  /** The scheduled function's run lock: one fixed id, nothing of the caller's reaches the key. */
  cronRunLock(): string;
  // The pre-auth resolve cache (keyed hashes only) under platform:{tenant-resolve}, and the org caches.
  /** `slugHash` is hashSegment(INDEX_HASH_KEY, "slug:" + slug). */
  tenantResolveSlug(slugHash: HashedSegment): string;
  /** `hostHash` is hashSegment(INDEX_HASH_KEY, "domain:" + host). */
  tenantResolveDomain(hostHash: HashedSegment): string;
  tenantResolveSlugMisses(): string;
  tenantResolveDomainMisses(): string;
  orgCacheGeneration(orgId: string): string;
  /** `generation` is "0" or 32 lowercase hex, as the read script found it. */
  orgSettingsCache(orgId: string, generation: string): string;
  /** `locationId` null: the whole organisation's count. */
  orgMemberCountCache(orgId: string, generation: string, locationId: string | null): string;
};

export type Keyspace = Readonly<
  // Fails to compile when a registry entry has no builder or a builder has no registry entry (data-only rows have none).
  { [K in Exclude<KeyName, DataOnlyKeyName>]: Builders[K] } & {
    prefix: string;
    env: KeyEnv;
    /** SCAN MATCH pattern covering every key of this namespace (braces are literal in Redis globs). */
    scanPattern: string;
    /** The invite object key without its last segment (ends in ':'), for Lua scripts that complete the
     * key with a validated invite id; stays inside the org's hash tag. */
    inviteObjectPrefix(orgId: string): string;
    /** The email-index key without its last segment (ends in ':'), for Lua scripts that complete the
     * key with a validated email hash; stays inside the org's hash tag. */
    inviteActiveByEmailHashPrefix(orgId: string): string;
    /** The receipt key without its last segment (ends in ':'), for the reconciler's script. */
    inviteReceiptPrefix(orgId: string): string;
    /** An org cache entry's key without its last segment (ends in ':'), for the read script that completes it with the
     * generation it just read (and the entry's validated qualifier); stays inside the org's hash tag. */
    orgCacheEntryPrefix(orgId: string, resource: OrgCacheResource): string;
  }
>;

export function createKeyspace(options: { prefix: string; env: KeyEnv }): Keyspace {
  const { prefix, env } = parseNamespace(options);
  const head = `${prefix}:${env}`;

  const org = (orgId: string) => `${head}:org:{${normalizeUuid(orgId, 'orgId')}}`;
  const user = (userId: string) => `${head}:user:{${normalizeUuid(userId, 'userId')}}`;
  const platform = () => `${head}:platform`;
  const resolve = () => `${head}:platform:{tenant-resolve}`;

  // `tagged`: whether this key may live under a named platform hash tag (only the throttle counter's registry row allows it).
  const scoped = (scope: KeyScope, tagged = false): string => {
    const kind = requireEnum((scope as { kind?: unknown } | null)?.kind, SCOPE_KINDS, 'scope.kind');
    if (kind === 'platform') {
      const tag = (scope as { tag?: unknown }).tag;
      if (tag === undefined) return platform();
      return `${platform()}:{${requireEnum(tag, tagged ? PLATFORM_TAGS : [], 'scope.tag')}}`;
    }
    return `${head}:${kind}:{${normalizeUuid((scope as { id?: unknown }).id, 'scope.id')}}`;
  };

  const keyspace: Keyspace = {
    prefix,
    env,
    scanPattern: `${head}:*`,

    inviteObject: (orgId, inviteId) => finish(`${org(orgId)}:invite:object:${normalizeUuid(inviteId, 'inviteId')}`),
    inviteActiveByOrg: (orgId) => finish(`${org(orgId)}:invite:active-by-org:${normalizeUuid(orgId, 'orgId')}`),
    inviteActiveByEmailHash: (orgId, emailHash) =>
      finish(`${org(orgId)}:invite:active-by-email-hash:${requireHex64(emailHash, 'emailHash')}`),
    inviteEmailIndexesByOrg: (orgId) => finish(`${org(orgId)}:invite:email-indexes-by-org:${normalizeUuid(orgId, 'orgId')}`),
    inviteReceipt: (orgId, inviteId) => finish(`${org(orgId)}:invite:receipt:${normalizeUuid(inviteId, 'inviteId')}`),
    inviteReceiptsByOrg: (orgId) => finish(`${org(orgId)}:invite:receipts-by-org:${normalizeUuid(orgId, 'orgId')}`),
    syrveRuntimeToken: (orgId, connectionId) => finish(`${org(orgId)}:syrve:runtime-token:${normalizeUuid(connectionId, 'connectionId')}`),
    syrveRuntimeTokenRefreshLock: (orgId, connectionId) =>
      finish(`${org(orgId)}:syrve:runtime-token-refresh-lock:${normalizeUuid(connectionId, 'connectionId')}`),
    syrveReconnectFailures: (orgId, connectionId) =>
      finish(`${org(orgId)}:syrve:reconnect-failures:${normalizeUuid(connectionId, 'connectionId')}`),
    syrveCredentialVersion: (orgId, connectionId) =>
      finish(`${org(orgId)}:syrve:credential-version:${normalizeUuid(connectionId, 'connectionId')}`),
    mfaChallenge: (userId, challengeId) => finish(`${user(userId)}:mfa:challenge:${normalizeUuid(challengeId, 'challengeId')}`),
    mfaTotpUsed: (userId, totpStep) => finish(`${user(userId)}:mfa:totp-used:${totpStepSegment(totpStep)}`),
    authSessionState: (userId, sessionStateId) =>
      finish(`${user(userId)}:auth:session-state:${normalizeUuid(sessionStateId, 'sessionStateId')}`),
    activeContext: (userId, sessionId) => finish(`${user(userId)}:context:active:${normalizeUuid(sessionId, 'sessionId')}`),
    throttleCounter: (scope, action, subject, windowStartSeconds) => {
      const windowId = `${requireEnum(action, THROTTLE_ACTIONS, 'action')}.${requireHex64(subject, 'subject')}.${windowStart(windowStartSeconds)}`;
      return finish(`${scoped(scope, true)}:throttle:counter:${windowId}`);
    },
    jobCache: (scope, jobId) => finish(`${scoped(scope)}:job:cache:${normalizeUuid(jobId, 'jobId')}`),
    revokedSession: (sessionId) => finish(`${platform()}:auth:revoked-session:${normalizeUuid(sessionId, 'sessionId')}`),
    revokedJti: (jtiDigest) => finish(`${platform()}:auth:revoked-jti:${requireHex64(jtiDigest, 'jtiDigest')}`),
    passwordResetToken: (digest) => finish(`${platform()}:auth:password-reset:${requireHex64(digest, 'tokenDigest')}`),
    ssoHandoffCode: (digest) => finish(`${platform()}:auth:sso-handoff:${requireHex64(digest, 'codeDigest')}`),
    oidcState: (digest) => finish(`${platform()}:auth:oidc-state:${requireHex64(digest, 'stateDigest')}`),
    consoleDevLogin: (digest) => finish(`${platform()}:auth:console-dev-login:${requireHex64(digest, 'codeDigest')}`),
    cronRunLock: () => finish(`${platform()}:cron:run-lock:all`),
    tenantResolveSlug: (hash) => finish(`${resolve()}:tenant:resolve-slug:${requireHex64(hash, 'slugHash')}`),
    tenantResolveDomain: (hash) => finish(`${resolve()}:tenant:resolve-domain:${requireHex64(hash, 'hostHash')}`),
    tenantResolveSlugMisses: () => finish(`${resolve()}:tenant:resolve-slug-misses:all`),
    tenantResolveDomainMisses: () => finish(`${resolve()}:tenant:resolve-domain-misses:all`),
    orgCacheGeneration: (orgId) => finish(`${org(orgId)}:cache:generation:${normalizeUuid(orgId, 'orgId')}`),
    orgSettingsCache: (orgId, generation) => finish(`${org(orgId)}:cache:settings:${generationSegment(generation)}`),
    orgMemberCountCache: (orgId, generation, locationId) =>
      finish(`${org(orgId)}:cache:member-count:${generationSegment(generation)}.${memberCountScope(locationId)}`),

    inviteObjectPrefix: (orgId) => `${org(orgId)}:invite:object:`,
    inviteActiveByEmailHashPrefix: (orgId) => `${org(orgId)}:invite:active-by-email-hash:`,
    inviteReceiptPrefix: (orgId) => `${org(orgId)}:invite:receipt:`,
    orgCacheEntryPrefix: (orgId, resource) => `${org(orgId)}:cache:${requireEnum(resource, ORG_CACHE_RESOURCES, 'resource')}:`,
  };
  return Object.freeze(keyspace);
}

const ORG_CACHE_RESOURCES = ['settings', 'member-count'] as const satisfies readonly OrgCacheResource[];

function generationSegment(value: unknown): string {
  if (typeof value !== 'string' || !GENERATION.test(value)) throw new KeyError('generation', '"0" or 32 lowercase hex characters');
  return value;
}

/** `all` for the organisation, or the Outlet's id. */
function memberCountScope(locationId: unknown): string {
  return locationId === null ? 'all' : normalizeUuid(locationId, 'locationId');
}

/** Largest TOTP step accepted (11 digits, far past any clock): keeps the replay-guard key bounded. */
const MAX_TOTP_STEP = 99_999_999_999;

function totpStepSegment(value: unknown): string {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_TOTP_STEP) {
    throw new KeyError('totpStep', 'a non-negative integer step number');
  }
  return String(value);
}

function windowStart(value: unknown): string {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_WINDOW_START_SECONDS) {
    throw new KeyError('windowStartSeconds', 'a non-negative integer of unix seconds');
  }
  return String(value);
}

// Every segment is validated, so this only trips on a future pattern that outgrows the limit.
function finish(key: string): string {
  if (key.length >= MAX_KEY_LENGTH) throw new KeyError('key', `fewer than ${MAX_KEY_LENGTH} characters`);
  return key;
}
