// The prose of docs/design/limits.md's throttle and API rate-limit tables, one row per limited action or limit: who is
// counted and why the numbers are what they are. The limits and windows come from THROTTLE_LIMITS
// (lib/runtime/throttle/limits.ts) and RATE_LIMITS (lib/runtime/ratelimit/limits.ts); the types refuse a row missing here.
import type { RateLimitKind } from '../../lib/runtime/ratelimit/limits.ts';
import type { LimitedAction } from '../../lib/runtime/throttle/limits.ts';

export interface ThrottleNote {
  countedPer: string;
  why: string;
}

export const THROTTLE_NOTES: Record<LimitedAction, ThrottleNote> = {
  'invite-create': {
    countedPer: 'organisation (org scope)',
    why: 'a person at the admin screen needs seconds per invite; a hundred-person onboarding list fits; a looping script does not',
  },
  'invite-resend': {
    countedPer: 'invite (org scope, the invite id the subject)',
    why: "an admin resends when a mail went astray, once or twice; more fills the invitee's inbox; each resend also counts in `invite-create` ([Resend](docs/design/invites.md#resend))",
  },
  'invite-accept': {
    countedPer: "account, in the token's organisation",
    why: 'a person accepts a handful of invites ever; every attempt counts, failed ones too, so token guessing is held to 2 a minute',
  },
  login: {
    countedPer: 'email (keyed hash), per organisation',
    why: 'never refuses: each attempt past 10 waits 250 ms, doubling, ≤ 4 s, before its KDF, so strangers slow a person, never lock them out',
  },
  'login-address': {
    countedPer: 'email and client address, per org',
    why: 'the lock: on the addresses that guessed; every attempt counts, so one address causes ≤ 10 KDFs per email ([Sign-in](docs/design/sign-in.md#login-throttles))',
  },
  'login-ip': {
    countedPer: 'client address (keyed hash)',
    why: 'an office behind one NAT signing in at nine fits; spraying one password over many emails from one address does not',
  },
  'password-reset': {
    countedPer: 'email (keyed hash), per organisation',
    why: 'every request counts, member or not; a person asks again once or twice when a mail is slow; more fills an inbox',
  },
  'mfa-verify': {
    countedPer: 'user (user scope), failures only',
    why: 'counted in the verify script, across challenges; 40 guesses an hour at 3 live codes in 10⁶ ([MFA](docs/design/mfa.md#mfa-challenges))',
  },
  'tenant-resolve': {
    countedPer: 'client address (keyed hash)',
    why: 'a sign-in page resolves once per visit; guessing workspace names gets one a second ([Tenant resolution](docs/design/tenants.md#tenant-resolution))',
  },
  'mfa-reauth': {
    countedPer: 'user (user scope), every attempt',
    why: 'the password a signed-in user gives to enrol, remove MFA or get new codes: every attempt counts ([Step-up](docs/design/mfa.md#step-up))',
  },
  'password-reset-ip': {
    countedPer: 'client address (keyed hash)',
    why: 'people forget passwords one at a time; walking a list of emails to fill inboxes (each email has its own 5) stops at 30',
  },
  'password-reset-confirm-ip': {
    countedPer: 'client address (keyed hash)',
    why: 'a person confirms once or twice; bounds the KDFs (a live link) and Redis round trips (a guessed one) one address can cost',
  },
  'mfa-verify-ip': {
    countedPer: 'client address (keyed hash)',
    why: 'like `login-ip`, which every verify follows; counts every attempt, forged challenges included, which no per-user counter sees',
  },
  'refresh-ip': {
    countedPer: 'client address (keyed hash)',
    why: 'a client refreshes once per 15-minute access token: an office of a few hundred with a tab or two fits; spraying tokens at PostgreSQL does not',
  },
  'mfa-recover-ip': {
    countedPer: 'client address (keyed hash)',
    why: 'for `POST /auth/mfa/recover`: a person uses a recovery code rarely, and each answer checks stored hashes',
  },
  'oidc-audit-ip': {
    countedPer: 'client address (keyed hash)',
    why: '`auth.oidc_failed` rows: a person whose sign-in fails retries a few times; past 20 only the log has it ([OIDC](docs/design/oidc.md#oidc-sign-in))',
  },
  'oidc-audit-org': {
    countedPer: 'organisation (org scope)',
    why: "the same rows, whatever the number of addresses: at most 4 800 a day, so a flood cannot bury a tenant's real events",
  },
  'domain-verify': {
    countedPer: 'organisation (org scope)',
    why: 'only when DNS is asked; retries while DNS propagates fit; each is a lookup of up to 3 s ([tenants](docs/design/tenants.md#domain-verification))',
  },
  'oidc-callback': {
    countedPer: 'client address (keyed hash)',
    why: "like `login-ip`, which counted the start every callback follows; counted in the state's consume script ([single-use](docs/design/single-use.md#the-per-address-limit-in-the-consume))",
  },
  'handoff-exchange': {
    countedPer: 'audience and client address',
    why: 'apps without a client secret only (one that presents it is exempt); a browser exchanges once per hand-over, a backend fits 40 a minute',
  },
  'passkey-options-ip': {
    countedPer: 'client address (keyed hash)',
    why: 'like `login-ip`: a person asks once per sign-in; each stores a challenge for 5 minutes; counted in the issuing script ([passkeys](docs/design/passkeys.md#the-challenge))',
  },
  'passkey-verify-ip': {
    countedPer: 'client address (keyed hash)',
    why: 'like `mfa-verify-ip`: every verify, made-up challenges included; counted in the consuming script, before the challenge is read ([passkeys](docs/design/passkeys.md#the-challenge))',
  },
  'api-key-refused-ip': {
    countedPer: "client address (keyed hash), under the organisation's tag",
    why: "a key unknown in the organisation, revoked or expired: counted in the key check's script, which reads nothing more once it is spent ([api-keys](docs/design/api-keys.md#the-check))",
  },
  'api-key-miss-ip': {
    countedPer: 'client address (keyed hash), across organisations',
    why: 'a key check that read PostgreSQL and was refused (unknown key, unknown organisation): read before any such read, never on a hit ([api-keys](docs/design/api-keys.md#unknown-keys-across-organisations))',
  },
};

/** The prose of the API rate limits' table (docs/design/limits.md#api-rate-limits); the quotas are RATE_LIMITS'. */
export const RATE_LIMIT_NOTES: Record<RateLimitKind, ThrottleNote> = {
  'user-route': {
    countedPer: 'user, on one route (method and template)',
    why: 'a person, or a client polling a list every second, stays far below; a loop on one route stops at 100',
  },
  user: {
    countedPer: 'user, over every authenticated route',
    why: 'a dashboard of a dozen panels refreshed every few seconds fits; one account is a tenth of its tenant',
  },
  tenant: {
    countedPer: "organisation, over all its members' requests",
    why: 'about 170 a second: a tenant of a few hundred working members fits; a flood stops before the stores',
  },
};
