// Public surface of the keys: builders, definitions with their TTLs and value schemas, segment validation, hashing, audit.
export { KeyError } from './key-error.ts';
export { isUuid, normalizeUuid, toUuidN, requireEnum } from './segments.ts';
export { hashSegment, hashEmail, normalizeEmail, parseHashedSegment, type HashedSegment } from './hash-segment.ts';
export { KEY_ENVS, type KeyEnv } from './namespace.ts';
export type { KeyName } from './definitions.ts';
export { KEY_REGISTRY, type RegistryEntry } from './registry.ts';
export { createKeyspace, type Keyspace } from './keyspace.ts';
export { auditKey, findRegistryEntry, matchingRegistryEntries } from './audit-keyspace.ts';
// Each domain's TTLs and value schemas, beside its keys (lib/keys/defs/<domain>.ts).
export { ORG_CACHE_GENERATION_TTL_SECONDS, MEMBER_COUNT_TTL_SECONDS, ORG_SETTINGS_TTL_SECONDS } from './defs/cache.ts';
export { memberCountSchema, orgSettingsSchema, type MemberCount, type OrgSettings } from './defs/cache.ts';
export { activeContextSchema, type ActiveContext } from './defs/context.ts';
export { CRON_RUN_LOCK_MAX_SECONDS } from './defs/cron.ts';
export {
  DENYLIST_REPAIR_LOCK_MAX_SECONDS,
  DENYLIST_STATE_TTL_SECONDS,
  DENYLIST_PENDING_MAX,
  denylistStateSchema,
  type DenylistState,
} from './defs/revocation.ts';
export { INVITE_RECEIPT_TTL_SECONDS, INVITE_TTL_SECONDS } from './defs/invite.ts';
export { inviteReceiptSchema, inviteRecordSchema, type InviteReceipt, type InviteRecord } from './defs/invite.ts';
export { JOB_CACHE_TTL_SECONDS, JOB_KINDS, jobCacheSchema } from './defs/job.ts';
export { MFA_CHALLENGE_TTL_SECONDS, TOTP_REPLAY_GUARD_MAX_SECONDS } from './defs/mfa.ts';
export { challengeRecord, sessionStateRecord, type ChallengeRecord, type SessionStateRecord } from './defs/mfa.ts';
export { ROLE_CODES, type RoleCode } from './defs/role-codes.ts';
export { MFA_ENROLMENT_TTL_SECONDS, enrolmentRecord, type EnrolmentRecord } from './defs/sign-in-policy.ts';
export { PASSKEY_CHALLENGE_TTL_SECONDS, passkeyChallengeSchema, type PasskeyChallenge } from './defs/passkey.ts';
export { SINGLE_USE_TTL_SECONDS, type SingleUseKind } from './defs/single-use.ts';
export { devLoginSchema, handoffSchema, oidcStateSchema, resetSchema, type OidcState } from './defs/single-use.ts';
export {
  SYRVE_CREDENTIAL_VERSION_TTL_SECONDS,
  SYRVE_RECONNECT_COOLDOWN_MAX_SECONDS,
  SYRVE_RECONNECT_COOLDOWN_SECONDS,
  SYRVE_REFRESH_LOCK_TTL_SECONDS,
  SYRVE_SESSION_CACHE_SECONDS,
} from './defs/syrve.ts';
export { sessionRecordSchema, type SessionRecord } from './defs/syrve.ts';
export { RESOLVE_CACHE_TTL_SECONDS, RESOLVE_GENERATION_TTL_SECONDS, RESOLVE_MISS_TTL_SECONDS } from './defs/tenant.ts';
export { publicTenantSchema, type PublicTenant } from './defs/tenant.ts';
export { THROTTLE_ACTIONS } from './defs/throttle.ts';
export { API_KEY_ENTRY_TTL_SECONDS, API_KEY_REFUSED_ENTRY_TTL_SECONDS, apiKeyEntrySchema, type ApiKeyEntry } from './defs/api-key.ts';
export { WEBHOOK_DELIVERY_LEASE_TTL_SECONDS } from './defs/webhook.ts';
export {
  PLAN_LIMITS_TTL_SECONDS,
  planLimitsSchema,
  RATE_LIMIT_COUNTER_MAX_SECONDS,
  RATE_LIMIT_KINDS,
  type PlanLimits,
} from './defs/rate-limit.ts';
