// The prose of every key for docs/keys.md: payload limits, audit counterpart, cleanup, the TTL rule in words. Ops only:
// nothing in the runtime imports it, so none of it reaches a bundle. `npm run docs:keys` writes docs/keys.md from it.
import { ACCESS_TOKEN_MAX_LIFETIME_SECONDS } from '../../lib/config/index.ts';
import {
  MFA_ENROLMENT_TTL_SECONDS,
  CRON_RUN_LOCK_MAX_SECONDS,
  DENYLIST_REPAIR_LOCK_MAX_SECONDS,
  DENYLIST_STATE_TTL_SECONDS,
  INVITE_RECEIPT_TTL_SECONDS,
  INVITE_TTL_SECONDS,
  JOB_CACHE_TTL_SECONDS,
  MEMBER_COUNT_TTL_SECONDS,
  MFA_CHALLENGE_TTL_SECONDS,
  PASSKEY_CHALLENGE_TTL_SECONDS,
  ORG_CACHE_GENERATION_TTL_SECONDS,
  ORG_SETTINGS_TTL_SECONDS,
  PLAN_LIMITS_TTL_SECONDS,
  RATE_LIMIT_COUNTER_MAX_SECONDS,
  RESOLVE_CACHE_TTL_SECONDS,
  RESOLVE_GENERATION_TTL_SECONDS,
  RESOLVE_MISS_TTL_SECONDS,
  SINGLE_USE_TTL_SECONDS,
  SYRVE_CREDENTIAL_VERSION_TTL_SECONDS,
  SYRVE_RECONNECT_COOLDOWN_SECONDS,
  SYRVE_REFRESH_LOCK_TTL_SECONDS,
  TOTP_REPLAY_GUARD_MAX_SECONDS,
  WEBHOOK_DELIVERY_LEASE_TTL_SECONDS,
  type KeyName,
} from '../../lib/keys/index.ts';
import { MFA_CHALLENGE_ATTEMPTS } from '../../lib/auth/mfa/policy.ts';
import { RESOLVE_MISSES_MAX } from '../../lib/runtime/tenants/policy.ts';

export interface KeyNotes {
  /** The TTL rule in words (the numbers come from the definitions' constants). */
  ttl: string;
  allowedPayload: readonly string[];
  forbiddenPayload: readonly string[];
  auditCounterpart: string;
  cleanup: string;
  notes?: string;
}

const INVITE_TTL_RULE = `Max 3 hours per member/object (${INVITE_TTL_SECONDS} s): the index TTL is at least its longest member's and at most 3 hours, refreshed on add; expired members are pruned on list and by the cleanup cron`;

const misses = (kind: 'slug' | 'domain'): KeyNotes => ({
  ttl: `${RESOLVE_MISS_TTL_SECONDS} s, set again on every add; a member counts only until its score (its own expiry)`,
  allowedPayload: [`the keyed hashes of unknown or deleted ${kind}s as members`, 'their expiry (unix ms) as scores'],
  forbiddenPayload: ['raw slugs or hosts', 'tenant data'],
  auditCounterpart: 'None (a negative cache)',
  cleanup: `Expired members pruned on every add; at most ${RESOLVE_MISSES_MAX} members (the soonest-expiring go first); a member is removed when its ${kind} is assigned; the key expires by TTL`,
  notes:
    'Bounded: random names from any number of callers evict older members instead of adding keys (docs/design/tenants.md#tenant-resolution).',
});

/** One per key: the type refuses a key without its notes, and a note for a key that does not exist. */
export const KEY_NOTES: Record<KeyName, KeyNotes> = {
  inviteObject: {
    ttl: 'Exactly 3 hours from creation (INVITE_TTL_SECONDS; only APP_ENV=test may shorten it)',
    allowedPayload: [
      'invite id',
      'storage organization id',
      'organization id',
      'optional location (Outlet) id',
      'email hash',
      'normalized email (runtime accept flow)',
      'role code',
      'created-by user id',
      'timestamps',
      'isActive',
      'correlation id',
      'token hash',
    ],
    forbiddenPayload: ['plaintext invitation token', 'secrets', 'raw bank data'],
    auditCounterpart: 'invite.created, invite.cancelled, invite.accepted',
    cleanup: 'Expire by TTL; delete on cancel or accept together with every index entry (one script); fail closed if missing',
  },
  inviteActiveByOrg: {
    ttl: INVITE_TTL_RULE,
    allowedPayload: ['invite ids in UUID "N" form as members', 'expiry unix seconds as scores'],
    forbiddenPayload: ['full invite payload', 'plaintext tokens', 'raw email'],
    auditCounterpart: 'Same invite lifecycle audit events',
    cleanup: 'Remove the invite id on cancel/accept; remove expired members during list and cleanup',
  },
  inviteActiveByEmailHash: {
    ttl: INVITE_TTL_RULE,
    allowedPayload: ['invite ids in UUID "N" form as members', 'expiry unix seconds as scores'],
    forbiddenPayload: ['raw email', 'plaintext token', 'secrets'],
    auditCounterpart: 'Same invite lifecycle audit events',
    cleanup: 'Remove the invite id on cancel/accept; remove expired members during list and cleanup',
    notes:
      'emailHash = HMAC-SHA256(INDEX_HASH_KEY, trimmed lower-case email), hex. Keyed so a leaked keyspace or dump ' +
      'cannot be reversed by hashing candidate emails; rotating INDEX_HASH_KEY orphans live index entries until they expire.',
  },
  inviteEmailIndexesByOrg: {
    ttl: `Raised to the invite TTL (${INVITE_TTL_SECONDS} s) on every add, never shortened, so it outlives every email index it lists; the cleanup cron raises it to cover its newest entry`,
    allowedPayload: [
      'email hashes (64 hex, as in inviteActiveByEmailHash keys) as members',
      'the latest expiry of that index, unix seconds, as scores',
    ],
    forbiddenPayload: ['raw email', 'invite ids', 'plaintext tokens'],
    auditCounterpart: 'None (a work list for the invite index cleanup)',
    cleanup: 'The cleanup cron drops an entry once its email index is gone; expires by TTL',
    notes:
      "Written by the create and give-back scripts in the same step as the email index (the org's hash tag): the cleanup " +
      'finds every email index of an organisation here instead of scanning the keyspace.',
  },
  inviteReceipt: {
    ttl: `Exactly ${INVITE_RECEIPT_TTL_SECONDS} s from the accept, registration or cancel (an admin's, or a removal's of the creator's invites) that consumed the invite: long enough for the caller's retry and several reconciliation runs`,
    allowedPayload: [
      'kind (accept, register or cancel)',
      "the accepting or cancelling user id, or the id a registration creates the newcomer's account with",
      'the consumed invite object as stored (token hash, never the token)',
      'consumed-at unix seconds',
      'the admin who asked to cancel meanwhile',
      "a cancel's reason when no admin asked for it (member-removed: the invite's creator was removed)",
    ],
    forbiddenPayload: ['plaintext invitation token', 'secrets', 'bearer tokens'],
    auditCounterpart:
      'invite.accepted (with user.registered for a registration) or invite.cancelled, written once by whoever finishes the outcome',
    cleanup: 'Expire by TTL; the reconciler removes it from the receipts index once the outcome is in PostgreSQL',
    notes:
      'Lets a lost reply finish exactly once: the same caller repeating gets the same answer, else the reconciler finishes it (a registration it cannot finish, having no password, it gives back).',
  },
  inviteReceiptsByOrg: {
    ttl: "At least its newest receipt's TTL, refreshed on add",
    allowedPayload: ['invite ids in UUID "N" form as members', 'consumed-at unix seconds as scores'],
    forbiddenPayload: ['receipt payload', 'plaintext tokens', 'raw email'],
    auditCounterpart: 'None (a work list for the reconciler)',
    cleanup: 'The reconciler removes members whose outcome is in PostgreSQL or whose receipt expired',
  },
  syrveRuntimeToken: {
    ttl: 'At most the upstream token/session expiry; when unknown, bounded by the session cache setting (non-positive: not stored)',
    allowedPayload: [
      'runtime access token/session state',
      'upstream expiry',
      'connection id',
      'organization id',
      'session transport',
      'correlation id',
    ],
    forbiddenPayload: ['permanent credentials', 'API keys', 'passwords', 'refresh secrets', 'connection secrets'],
    auditCounterpart: 'Optional token lifecycle metadata audit, never the token value',
    cleanup: 'Delete on logout, connection disable, token invalidation (upstream 403) and credential rotation; expire by TTL',
  },
  syrveRuntimeTokenRefreshLock: {
    ttl: `Short lock TTL, ${SYRVE_REFRESH_LOCK_TTL_SECONDS} seconds; safe against deadlock by TTL`,
    allowedPayload: ['random lock owner id / correlation metadata'],
    forbiddenPayload: ['passwords', 'password hashes', 'API keys', 'permanent secrets', 'runtime token/session value'],
    auditCounterpart: 'Critical reconnect failure audit after retry exhaustion only',
    cleanup: 'Compare-and-delete by the lock owner on release; expire by TTL',
  },
  syrveReconnectFailures: {
    ttl: `The reconnect cooldown (SYRVE_RECONNECT_COOLDOWN_SECONDS, ${SYRVE_RECONNECT_COOLDOWN_SECONDS} s default), set again on every increment in the same script`,
    allowedPayload: ['count of consecutive failed reconnects (upstream 403 on a fresh session, refused login)'],
    forbiddenPayload: ['status bodies', 'session ids', 'passwords', 'password hashes'],
    auditCounterpart: 'syrve.reconnect_exhausted (critical) when the count reaches 7, written once',
    cleanup:
      'Deleted on a successful upstream call, on credential rotation and on re-enable; expires after the cooldown, which closes the circuit. The syrve-housekeeping task gives one without a TTL (or past the cooldown) the cooldown and deletes those of disabled connections',
    notes: 'At 7 the connection stops logging in: calls fail fast without an upstream request until the key is gone.',
  },
  syrveCredentialVersion: {
    ttl: `Exactly ${SYRVE_CREDENTIAL_VERSION_TTL_SECONDS} s from the rotation: longer than any login in flight can still try to store its session`,
    allowedPayload: ['the newest credential_version (an integer)'],
    forbiddenPayload: ['credentials', 'session ids', 'anything but the integer'],
    auditCounterpart: 'syrve.credentials_rotated',
    cleanup: 'Expire by TTL; only ever raised, never lowered',
    notes: 'A login that started with older credentials cannot store its session while this says a newer version exists.',
  },
  passkeyChallenge: {
    ttl: `Exactly ${PASSKEY_CHALLENGE_TTL_SECONDS} s from the options call that issued it`,
    allowedPayload: [
      'the ceremony (registration or authentication)',
      'organization id',
      "user id (a registration's: the signed-in user who asked)",
      'created-at timestamp',
      'correlation id',
    ],
    forbiddenPayload: ['the challenge itself (the key is its SHA-256)', 'credential ids or public keys', 'tokens', 'passwords'],
    auditCounterpart:
      'passkey.registered when a registration answers it; session.created (method passkey) when an authentication does; passkey.counter_regressed for a cloned authenticator; other refusals are not audited',
    cleanup:
      'Consumed (GET+DEL, one script) by the first verify that presents it, whatever its answer; expire by TTL; a miss is PASSKEY_CHALLENGE_INVALID',
    notes:
      'Under platform:{passkey}, beside the per-address counters (passkey-options-ip, passkey-verify-ip) that the issue and consume scripts count first (docs/design/passkeys.md).',
  },
  mfaChallenge: {
    ttl: `Exactly ${MFA_CHALLENGE_TTL_SECONDS} s from the password step that created it; a wrong code keeps the TTL it had`,
    allowedPayload: [
      'challenge id',
      'user id',
      'SHA-256 (hex) verifier of the challenge token',
      "the user's credential epoch when the password was checked (a password change since refuses the session)",
      'created/expiry timestamps',
      `attempts left (${MFA_CHALLENGE_ATTEMPTS} when created)`,
      'correlation id',
    ],
    forbiddenPayload: ['the challenge token or its secret', 'TOTP secrets or codes', 'passwords', 'recovery codes'],
    auditCounterpart:
      'session.created (method password+totp) when it is answered, and mfa.recovery_code_used beside it when a recovery code answered it; refusals are counted, not audited',
    cleanup:
      'Written with its authSessionState by one script at the password step; deleted with it by the verify or the recover script on success or on the last wrong code (GET then DEL in one script, never GETDEL); else expires by TTL',
    notes:
      'Located by the challenge token itself (user id + challenge id + 32 random bytes); a new challenge leaves the per-user mfa-verify failure counter (throttleCounter) as it is.',
  },
  mfaTotpUsed: {
    ttl: `Until the step can no longer verify: (step + 2) x 30 s from the epoch (the code is accepted one step either side of now), plus 30 s for clocks of other instances running behind; at most ${TOTP_REPLAY_GUARD_MAX_SECONDS} s`,
    allowedPayload: ["'1' (presence marker: the user's code of this step was used)"],
    forbiddenPayload: ['the code', 'the TOTP secret', 'anything but the marker'],
    auditCounterpart: 'None (the sign-in it completed is audited as session.created)',
    cleanup: 'Expire by TTL only; an early delete would let the same code sign in twice',
    notes:
      'The TOTP replay guard: set in the verify script that consumes the challenge, and (SET NX) by the enrolment confirmation. The id is the RFC 6238 step number (unix seconds / 30), never the code.',
  },
  authSessionState: {
    ttl: `Session-bound: the half-finished login between password and MFA lives exactly as long as the challenge that can finish it (${MFA_CHALLENGE_TTL_SECONDS} s), and far less than the session it becomes`,
    allowedPayload: [
      'session state id (the id of the MFA challenge it waits on)',
      'organization id of the login',
      'the email the password was verified for (the access token carries it)',
      'created/expiry timestamps',
      'correlation id',
    ],
    forbiddenPayload: ['passwords', 'the challenge token', 'raw tokens where a hash is possible', 'permanent user data beyond the email'],
    auditCounterpart: 'session.created when the login finishes',
    cleanup: 'Written and deleted by the same scripts as its mfaChallenge (one id names both); expire by TTL',
  },
  mfaEnrolment: {
    ttl: `Exactly ${MFA_ENROLMENT_TTL_SECONDS} s from the sign-in that created it (a first step the organisation's policy accepts, by a member without the second factor it requires)`,
    allowedPayload: [
      'enrolment id',
      'user id',
      'organization id of the sign-in',
      'the email the first step verified (the access token carries it)',
      "the user's credential epoch when the first step checked it (a password change since refuses the session)",
      'the first step (password or oidc) and the OpenID provider id',
      'SHA-256 (hex) verifier of the enrolment token',
      'created/expiry timestamps',
      'correlation id',
    ],
    forbiddenPayload: ['the enrolment token or its secret', 'TOTP secrets or codes', 'passwords', 'recovery codes'],
    auditCounterpart:
      'mfa.enrolled when a factor is started with it; mfa.confirmed and session.created (method password+totp or oidc+totp) in one transaction when it opens the session',
    cleanup:
      "Deleted by the script that spends it when a first code confirms the factor (GET then DEL, the code's step burned in the same script); else expires by TTL",
    notes:
      'Located by the enrolment token itself (user id + enrolment id + 32 random bytes); never a bearer token: it is not a JWT, so no authenticated route accepts it.',
  },
  activeContext: {
    ttl: "Session-bound: the session's remaining life when set (sessions.expires_at − now for sign-in's sessions; the presenting token's remaining life for a session without a row), never more than SESSION_TTL_SECONDS",
    allowedPayload: ['user id', 'organization id', 'optional Outlet id', 'active role/scope hints', 'timestamp', 'correlation id'],
    forbiddenPayload: ['permissions as permanent truth', 'secrets', 'raw bank data'],
    auditCounterpart: 'None required; business actions are audited separately',
    cleanup: 'Expire with the session; delete on logout, sign out everywhere, an admin revoke, or context reset (DELETE /auth/context)',
  },
  apiKeyEntry: {
    ttl: '300 s for an active key (API_KEY_ENTRY_TTL_SECONDS), 60 s for a key unknown in the organisation or revoked (API_KEY_REFUSED_ENTRY_TTL_SECONDS); filled from PostgreSQL on a miss',
    allowedPayload: [
      'state (active or refused)',
      'api key id, organization id, the creating user id',
      'scopes, expiry (unix ms), per-key limit',
      "the organisation's api_key_seq it was read with",
    ],
    forbiddenPayload: ['the key itself', 'its hash (it is in the key name only)', 'names', 'anything of another organisation'],
    auditCounterpart:
      'api_key.created, api_key.updated, api_key.revoked, api_key.rolled in PostgreSQL; the entry is a read-through copy of api_keys',
    cleanup:
      "TTL; deleted after a change of the key commits (scopes, roll, revocation); an entry older than the organisation's api_key_seq is not used (docs/design/api-keys.md#revocation)",
  },
  activeContextIndex: {
    ttl: "The longest remaining life of the contexts it lists: each PUT /auth/context adds its session scored by that context's expiry and raises the key's TTL to the context's when it is shorter",
    allowedPayload: ["the session ids of the user's active contexts as members", 'when each context expires (unix seconds) as scores'],
    forbiddenPayload: ['tokens', 'organisation or role data (the contexts hold those)', "other users' sessions"],
    auditCounterpart: 'None (an index of activeContext)',
    cleanup:
      "Members whose score has passed are pruned on every set; a member's removal (DELETE /orgs/{orgId}/members/{userId}) reads it, deletes the contexts pointing at that organisation and removes their members, and members whose context is gone; the key expires by TTL",
    notes:
      'A member whose context was deleted by logout or a reset stays until its score passes or a removal visits it; the removal reads the context itself, never trusts the index alone.',
  },
  throttleCounter: {
    ttl: 'The seconds left in its fixed window (at most the window length), set with the first INCR and restored whenever the counter is found without one, in the same script (never a TTL-less counter)',
    allowedPayload: ['counter value'],
    forbiddenPayload: ['raw credentials', 'raw IP or email (the subject is hashed)', 'payload data'],
    auditCounterpart: 'Security audit only for threshold events (a limit reached), never per hit',
    cleanup: 'Expire by TTL; reset only by an authorised admin or system operation',
    notes:
      'A per-subject limiter on a tenant endpoint uses the tenant scope, so one tenant cannot exhaust ' +
      "another tenant's bucket; pre-auth limiters (by IP) use the platform scope (the tenant-resolve limiter " +
      'under the platform:{tenant-resolve} hash tag, beside the cache its script reads). A per-IP subject is an IPv4 ' +
      "address or an IPv6 address's /64 (lib/runtime/throttle/ip-subject.ts), hashed like every subject. login-address " +
      "counts per (email, address) in the organisation's scope, beside the login counter one script hits with it.",
  },
  rateLimitCounter: {
    ttl: `${RATE_LIMIT_COUNTER_MAX_SECONDS} s from its window's first count (two 60 s windows, the second as the sliding window's previous one, and a second for clocks), set with the first INCR and restored whenever the counter is found without one, in the same script`,
    allowedPayload: ['counter value'],
    forbiddenPayload: ['raw user ids, organisation ids or routes (the subject is hashed)', 'credentials', 'payload data'],
    auditCounterpart: "None per request; an operator's lift is audited (ratelimit.lifted)",
    cleanup:
      "Expire by TTL; deleted by an operator's lift (POST /ops/tenants/{orgId}/rate-limit/lift, /ops/users/{userId}/rate-limit/lift)",
    notes:
      "The API rate limiter (docs/design/limits.md#api-rate-limits): on an organisation's route all three counters live under its hash tag (one script), on a route without one the user's two under the user's. The window number is unix ms / 60 000 of the counting isolate's clock.",
  },
  jobCache: {
    ttl: `Exactly ${JOB_CACHE_TTL_SECONDS} s from the last heartbeat, set again by every heartbeat (JOB_CACHE_TTL_SECONDS; only APP_ENV=test may shorten it); not a system of record: the jobs row in PostgreSQL is`,
    allowedPayload: ['progress percent', 'last heartbeat', 'non-sensitive status', 'correlation id'],
    forbiddenPayload: ['durable job source of truth', 'outbox payload', 'secrets', 'raw bank lines', 'full account numbers'],
    auditCounterpart: 'Durable job/audit records outside Redis',
    cleanup: 'Expire by TTL; delete after completion/cancellation; never delete durable records',
  },
  revokedSession: {
    ttl: `The remaining life of the longest-lived access token the session can still present: logout sets the longer of the presenting token's and ACCESS_TOKEN_MAX_LIFETIME_SECONDS; the denylist-repair task writes a missing entry with revoked_at + ACCESS_TOKEN_MAX_LIFETIME_SECONDS (${ACCESS_TOKEN_MAX_LIFETIME_SECONDS} s default) - now`,
    allowedPayload: ["'1' (presence marker; the read path only checks existence)"],
    forbiddenPayload: ['the token', 'token claims', 'user data'],
    auditCounterpart: 'The revoked session in PostgreSQL (source of truth) and its logout/revoke audit event',
    cleanup:
      'Expire by TTL only; an early delete would un-revoke a live token. A lost entry is written again from PostgreSQL by the denylist-repair task',
  },
  revokedJti: {
    ttl: 'The remaining life of the revoked token (its exp minus now)',
    allowedPayload: ["'1' (presence marker; the read path only checks existence)"],
    forbiddenPayload: ['the token', 'the raw jti', 'token claims', 'user data'],
    auditCounterpart:
      "None: it ends one token whose sid names another user's session (logout, sign out everywhere), which nothing in PostgreSQL records; the session_owner_mismatch WARN says so",
    cleanup: 'Expire by TTL only; an early delete would un-revoke a live token',
    notes:
      'The id is the SHA-256 hex of the jti claim, so an arbitrary jti string never becomes a key segment. Written by lib/runtime/revocation/revoke-token.ts after its revoked_tokens row (the same digest); the denylist repair writes a lost entry again from that row, and until then the check asks PostgreSQL.',
  },
  denylistState: {
    ttl: `At most ${DENYLIST_STATE_TTL_SECONDS} s; every completed repair pass writes it again, so it lives while the scheduled repair runs`,
    allowedPayload: [
      "state ('repairing' or 'whole')",
      "the repair pass's epoch (a random UUID)",
      'unix milliseconds since that state',
      'the revocation clock point applied up to, the clock values landed above it (at most 256) and the clock a pass began at (integers, migrations/0024)',
    ],
    forbiddenPayload: ['session ids', 'token ids', 'secrets', 'cursors (the pass position lives in PostgreSQL, cron_cursors)'],
    auditCounterpart: 'None (the repair logs cron_task lines and denylist_incomplete)',
    cleanup: 'Expire by TTL; lost with the store it describes, which is the point: its absence says the denylist may be incomplete',
    notes:
      "Read in the revocation check's own script, beside the entries (one round trip, one command); moved by each revocation's write script after its entries (lib/runtime/revocation/write-revocation.ts). Every denylist key shares the platform:{denylist} hash tag, so the shard that holds the entries holds it. Missing or repairing: a request with no entry asks PostgreSQL about its session and starts one repair (lib/runtime/revocation/denylist-state.ts). Whole but its applied point behind the revocation clock beyond the grace (lib/runtime/revocation/revocation-clock.ts): the same, and the repair is the targeted catch-up from that point (lib/runtime/revocation/catch-up-denylist.ts).",
  },
  denylistRepairLock: {
    ttl: `Four task time budgets plus an overrun, at most ${DENYLIST_REPAIR_LOCK_MAX_SECONDS} s; set with the lock and never extended`,
    allowedPayload: ['random lock owner id (128 bits, hex)'],
    forbiddenPayload: ['secrets', 'cursors', 'correlation ids'],
    auditCounterpart: 'None',
    cleanup: 'Compare-and-delete by its owner when the repair ends; expire by TTL when the holder died',
    notes:
      'Lets one request-started repair run at a time across every isolate; the scheduled repair does not take it (both are safe at once).',
  },
  passwordResetToken: {
    ttl: `Exactly ${SINGLE_USE_TTL_SECONDS['password-reset']} s from the request`,
    allowedPayload: [
      'user id',
      'organization id',
      "the user's credential epoch when the link was made (a password change since makes the link invalid)",
      'created-at timestamp',
      'correlation id',
    ],
    forbiddenPayload: ['the token', 'the email', 'passwords or password hashes'],
    auditCounterpart: 'auth.password_reset, written by the confirm (the request writes no audit row)',
    cleanup: 'Consumed (GET+DEL, one script) by confirm; expire by TTL; a miss is the same answer as one never made',
  },
  ssoHandoffCode: {
    ttl: `Exactly ${SINGLE_USE_TTL_SECONDS['sso-handoff']} s from creation`,
    allowedPayload: [
      'user id',
      'session id',
      "the verified email (the handed-over token's claim)",
      'target audience',
      'created-at timestamp',
      'correlation id',
    ],
    forbiddenPayload: ['the code', 'access or refresh tokens', 'passwords'],
    auditCounterpart: "None yet: the exchange writes no audit row (the session's own rows tell its story)",
    cleanup: 'Consumed (GET+DEL, one script) by the exchange; expire by TTL; a miss fails closed with one answer',
  },
  oidcState: {
    ttl: `Exactly ${SINGLE_USE_TTL_SECONDS['oidc-state']} s from the start of the sign-in`,
    allowedPayload: [
      'provider id',
      'organization id',
      'SHA-256 of the browser binding cookie',
      'the random PKCE verifier of this start (a secret: only here, never in a key, log, answer or audit row)',
      'the random nonce of this start',
      'created-at timestamp',
      'correlation id',
    ],
    forbiddenPayload: ['the state value', 'the binding cookie itself', 'authorization codes', 'ID or access tokens', 'client secrets'],
    auditCounterpart: 'auth.oidc_signed_in and auth.oidc_failed (throttled), written by the callback from the value',
    cleanup:
      'Consumed by the callback before anything else, by one script that deletes it only when the hash of the browser binding cookie matches (a callback from another browser leaves it); expire by TTL',
  },
  consoleDevLogin: {
    ttl: `Exactly ${SINGLE_USE_TTL_SECONDS['console-dev-login']} s from npm start's banner (APP_ENV=dev only)`,
    allowedPayload: ['user id', 'organization id', "the user's email", 'created-at timestamp', 'correlation id'],
    forbiddenPayload: ['the code', 'access or refresh tokens', 'passwords'],
    auditCounterpart: 'session.created (method dev-link), written when the link is opened',
    cleanup: 'Consumed (GET+DEL, one script) by GET /console/dev-login; expire by TTL',
    notes: 'Made by npm start only; the route that consumes it exists in APP_ENV=dev alone (docs/console.md).',
  },
  cronRunLock: {
    ttl: `The run's tasks' time budgets, each plus 5 s of overrun, plus 2 s (lib/cron/run-lock-ttl.ts), at most ${CRON_RUN_LOCK_MAX_SECONDS} s; set with the lock and never extended (a held lock found without a TTL gets one)`,
    allowedPayload: ['random lock owner id (128 bits, hex)'],
    forbiddenPayload: ['secrets', 'task state or cursors (they live in PostgreSQL, cron_cursors)', 'correlation ids'],
    auditCounterpart: 'None (the run logs cron_run and one cron_task line per task)',
    cleanup: 'Compare-and-delete by its owner when the run ends; expire by TTL when the holder died',
    notes: 'Saves work only (Upstash replicates asynchronously): every task is idempotent and safe to run twice at once anyway.',
  },
  tenantResolveSlug: {
    ttl: `Exactly ${RESOLVE_CACHE_TTL_SECONDS} s from the miss that wrote it: the backstop of a lost invalidation`,
    allowedPayload: ['organization id', 'slug', 'state (active or suspended)', 'display name', 'logo URL', 'primary colour'],
    forbiddenPayload: [
      'suspension reason',
      'integration settings',
      'feature flags',
      'custom domains',
      'anything not in the public whitelist',
    ],
    auditCounterpart: 'tenant.branding_updated, tenant.suspended, tenant.reactivated (the invalidations)',
    cleanup: "Deleted (best effort) when the organisation's slug, branding or state changes; expire by TTL",
    notes:
      'Pre-auth readable: the value is built field by field by the whitelist schema (lib/runtime/tenants/public-tenant.ts), ' +
      'never a spread of the row. The id is HMAC-SHA256(INDEX_HASH_KEY, "slug:" + slug), so a slug and a domain never share an entry.',
  },
  tenantResolveDomain: {
    ttl: `Exactly ${RESOLVE_CACHE_TTL_SECONDS} s from the miss that wrote it: the backstop of a lost invalidation`,
    allowedPayload: ['organization id', 'slug', 'state (active or suspended)', 'display name', 'logo URL', 'primary colour'],
    forbiddenPayload: ['the raw host (in the key)', 'suspension reason', 'integration settings', 'feature flags', 'other domains'],
    auditCounterpart: 'tenant.domains_updated, tenant.branding_updated, tenant.suspended, tenant.reactivated (the invalidations)',
    cleanup: "Deleted (best effort) for every old and new domain when the organisation's domains, branding or state change; expire by TTL",
    notes: 'The id is HMAC-SHA256(INDEX_HASH_KEY, "domain:" + the lowercased host without a trailing dot): no host reaches a key.',
  },
  tenantResolveSlugMisses: misses('slug'),
  tenantResolveDomainMisses: misses('domain'),
  tenantResolveGeneration: {
    ttl: `Exactly ${RESOLVE_GENERATION_TTL_SECONDS} s from the last bump: far longer than a fill in flight, so none can see it lapse back to the "0" it read`,
    allowedPayload: ['32 random hex characters'],
    forbiddenPayload: ['anything but the generation'],
    auditCounterpart: 'tenant.cache_invalidated, and every change that invalidates (branding, domains, suspension)',
    cleanup: 'Replaced by each invalidation (inside FORGET_RESOLVE); expire by TTL (readers then use "0")',
    notes:
      'Read by the resolve script on a miss; a fill stores its answer (or its miss) only while the generation is still the one it read, so an answer read before an invalidation is never stored after it.',
  },
  orgCacheGeneration: {
    ttl: `Exactly ${ORG_CACHE_GENERATION_TTL_SECONDS} s from the last bump: longer than any entry it names, so a lapsed generation ("0" again) finds no entry of an earlier "0"`,
    allowedPayload: ['32 random hex characters'],
    forbiddenPayload: ['anything but the generation'],
    auditCounterpart: 'tenant.cache_invalidated, and every change that invalidates (branding, domains, suspension)',
    cleanup: 'Replaced by each tenant-wide invalidation (one SET … EX); expire by TTL (readers then use "0")',
    notes:
      'Inside every cache key of the organisation: a bump makes all its entries unreachable at once, without SCAN; they expire by their TTL.',
  },
  orgSettingsCache: {
    ttl: `Exactly ${ORG_SETTINGS_TTL_SECONDS} s from the miss that wrote it`,
    allowedPayload: ['organization id', 'slug', 'state', 'display name', 'logo URL', 'primary colour', 'custom domains'],
    forbiddenPayload: ['suspension reason', 'integration settings', 'feature flags', 'secrets'],
    auditCounterpart: 'None (a read-through cache; the changes it reflects are audited)',
    cleanup: 'Unreachable after a generation bump (branding, domains, suspension, tenant-wide invalidation); expire by TTL',
    notes: 'Read through lib/runtime/cache; on any Redis error the PostgreSQL answer is returned.',
  },
  orgPlanLimitsCache: {
    ttl: `Exactly ${PLAN_LIMITS_TTL_SECONDS} s from the miss that wrote it: a plan change reaches every isolate within that`,
    allowedPayload: ['organization id', 'the three per-minute quotas (user and route, user, tenant), or null for the default'],
    forbiddenPayload: ['anything but the quotas', 'secrets'],
    auditCounterpart: 'None (a read-through cache of organization_rate_limits)',
    cleanup: 'Unreachable after a generation bump (tenant-wide invalidation); expire by TTL',
    notes:
      "Read by the rate limiter's count script itself, under the generation it reads in the same script, so the plan costs no round trip; a miss counts with the defaults and fills the entry off the request path (lib/runtime/ratelimit/plan.ts).",
  },
  orgMemberCountCache: {
    ttl: `Exactly ${MEMBER_COUNT_TTL_SECONDS} s from the miss that wrote it: a grant or revoke shows within that`,
    allowedPayload: ['the count', 'organization id', 'optional Outlet id'],
    forbiddenPayload: ['user ids', 'emails', 'roles of anyone'],
    auditCounterpart: 'None (a read-through cache)',
    cleanup: 'Unreachable after a generation bump; expire by TTL (an accepted invite does not invalidate it)',
    notes: 'Per organisation (all) or per Outlet.',
  },
  refPlanStatuses: {
    ttl: 'Reference data: at most an hour when a producer is added',
    allowedPayload: ['the list of plan status codes and labels'],
    forbiddenPayload: ['tenant data', 'anything per organisation'],
    auditCounterpart: 'None',
    cleanup: 'Expire by TTL',
    notes: 'Data only, no builder: reserved under the platform scope; runstate has no plans yet.',
  },
  sysHealthLastCheck: {
    ttl: 'Operational data: at most 10 minutes when a producer is added',
    allowedPayload: ['when the last check ran', 'per-store up/down'],
    forbiddenPayload: ['URLs', 'tokens', 'error messages (they can embed commands)'],
    auditCounterpart: 'None',
    cleanup: 'Expire by TTL',
    notes: 'Data only, no builder: reserved; GET /healthz answers live and stores nothing.',
  },
  webhookDeliveryLease: {
    ttl: `Exactly ${WEBHOOK_DELIVERY_LEASE_TTL_SECONDS} s from the take: one send (its URL check, its 10 s deadline, the outcome's write) with room`,
    allowedPayload: ['random lock owner id (128 bits, hex)'],
    forbiddenPayload: ['the endpoint secret', 'the URL', 'the payload', 'the response'],
    auditCounterpart: 'webhook.delivery_failed when the delivery gives up; the attempts themselves are on the delivery row',
    cleanup: 'Compare-and-delete by its owner after the outcome is written; expire by TTL when the holder died',
    notes:
      "Keeps a second isolate from sending the same delivery at once. The guarantee that a delivery ends once is PostgreSQL's: the outcome is an UPDATE fenced on the state and attempt count the sender read (docs/design/event-delivery.md).",
  },
};
