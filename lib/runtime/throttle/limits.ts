// Every throttle's limit and window as one table of data, with the reason for each row (docs/design/limits.md#limits).
import type { Keyspace } from '../../keys/index.ts';

/** The registry's allow-list of throttle actions (THROTTLE_ACTIONS in lib/keys). */
export type ThrottleAction = Parameters<Keyspace['throttleCounter']>[1];

export interface ThrottleLimit {
  /** Hits allowed per fixed window; the next one answers 429. */
  limit: number;
  windowSeconds: number;
}

/**
 * invite-create, per organisation: 120 per 10 minutes. A person at the admin screen needs several seconds per
 * invite (120 would take them 10 minutes non-stop), and a hundred-person onboarding list still fits one window; a
 * script looping on create is stopped within seconds and needs over an hour to reach the active-invite cap.
 * invite-resend, per invite (organisation scope, the invite id the subject): 5 per hour. An admin resends when a mail
 * went astray, once or twice; more fills the invitee's inbox. Each resend also counts in invite-create.
 * invite-accept, per account within the token's organisation (counted inside the accept script): 20 per 10 minutes. A person accepts a handful of invites, ever, plus a retry or two;
 * 20 is far above that and far below what token guessing (every attempt counts, failed or not) would need.
 * login, per (organisation, keyed email hash) — the tenant in the key, so tenant A cannot touch a user of tenant B:
 * 10 per 15 minutes before each further attempt waits (SIGN_IN_DELAY), never a refusal: a refusal per email let anyone
 * who knew the email keep its owner out. Counted for every attempt any address makes that reaches the derivation.
 * login-address, per (organisation, email, client address as ipSubject gives it; one keyed hash of both): 10 per 15
 * minutes, then 429. The lock lands on the addresses that guessed, not on the person: their own address still signs in.
 * Every attempt counts (each costs a derivation), so one address causes at most 10 derivations per email per window.
 * login-ip, per client IP (platform scope; the IP is keyed-hashed): 100 per 15 minutes — an office behind one NAT
 * signing in at nine still fits, while spraying one password over many emails from one address does not.
 * password-reset, per (organisation, keyed email hash) over an hour (the tenant in the key, so no tenant uses up another's bucket): 5. A person asks
 * again once or twice when a mail is slow; more is someone filling their inbox. An email in N tenants gets N × 5.
 * mfa-verify, per user (user scope; counted inside the verify script, failures only): 10 wrong codes per 15 minutes,
 * across every challenge, so asking for a new challenge buys no new tries. A person mistyping a code fails once or
 * twice; a caller who already has the password gets 40 guesses an hour at 3 live codes in 10^6 (about 1 in 8 300).
 * tenant-resolve, per client IP (platform scope under the resolve cache's hash tag; the IP is keyed-hashed): 60 per
 * minute. A sign-in page resolves once per visit, an office behind one NAT a few dozen times a minute at most; guessing
 * workspace names gets one a second, and its misses cost PostgreSQL at most that (docs/design/tenants.md#tenant-resolution).
 * mfa-reauth, per user (user scope; every attempt, counted before the KDF): 10 per 15 minutes. The password (and code)
 * a signed-in user gives to enrol, remove a factor or replace recovery codes: a person does this rarely and mistypes
 * once or twice; someone holding a stolen access token gets 10 password guesses per window, and the token ends first.
 * Every "-ip" row below counts per client address as ipSubject gives it (an IPv6 caller per /64), platform scope:
 * password-reset-ip, reset requests: 30 per hour. People forget passwords one at a time; a whole office asking within
 * the hour still fits, while walking a list of emails to fill inboxes (each email has its own 5) stops at 30.
 * password-reset-confirm-ip, reset confirms: 20 per 15 minutes. A person confirms once or twice; every confirm with a
 * live link costs a KDF, and a guessed token a Redis round trip, so this bounds both per address.
 * mfa-verify-ip, MFA verifications: 100 per 15 minutes, like login-ip (each follows a login). The per-user mfa-verify
 * counts wrong codes; this counts every attempt, forged challenges included, which cost the user no counter.
 * refresh-ip, refreshes: 600 per 15 minutes. A client refreshes once per access token (15 minutes), so an office of a
 * few hundred people with a tab or two each fits; a caller spraying refresh tokens at PostgreSQL does not.
 * mfa-recover-ip, MFA recovery-code answers: 30 per 15 minutes (each answer
 * checks codes against stored hashes: fewer than verify, as a person uses a recovery code rarely).
 * oidc-audit-ip, per client address (as ipSubject gives it): 20 auth.oidc_failed rows per 15 minutes. A
 * person whose sign-in fails retries a few times; past 20 the refusals stand but only the log records them.
 * oidc-audit-org, per organisation (its scope): 200 auth.oidc_failed rows per hour, whatever the number of addresses, so
 * a flood of failed callbacks adds at most 4 800 rows a day to an organisation's trail and cannot bury its real events
 * in the export window (docs/design/oidc.md#oidc-sign-in). Counted only for hits the IP bucket let through.
 * oidc-callback, per client address (as ipSubject gives it; platform scope under the OIDC states' hash tag, counted in
 * the consume script): 100 per 15 minutes, like login-ip, which counted the start every callback follows. Past it a
 * callback is refused before any state is read.
 * handoff-exchange, per (audience, client address as ipSubject gives it; under the handoff codes' hash tag, counted in
 * the consume script): 600 per 15 minutes, for apps that do not present a client secret (one that does is exempt: its
 * backend may exchange every user's code from one address). A browser exchanges once per hand-over; an app's backend
 * without a secret fits 40 a minute, and one that needs more configures its secret.
 * passkey-options-ip, per client address (as ipSubject gives it; under the passkey challenges' hash tag, counted in the
 * script that stores the challenge): 100 per 15 minutes, like login-ip. A person asks for options once per sign-in (the
 * page asks again when a prompt times out); each costs a key for 5 minutes, so this bounds what one address can park.
 * passkey-verify-ip, per client address (the same tag, counted in the consume script): 100 per 15 minutes, like
 * mfa-verify-ip. Each verify of a live challenge costs a PostgreSQL read and a signature check; made-up challenges stop
 * at the counter's limit after one round trip each.
 * api-key-refused-ip, per client address under the organisation's hash tag (counted in the API key check's script,
 * lib/auth/api-keys/check-script.ts): 60 per 15 minutes. A client whose key was revoked or mistyped retries a few
 * times; guessing keys (190 bits) is hopeless anyway, and this bounds what one address costs the stores.
 * api-key-miss-ip, per client address (platform scope, so across organisations; read before a key check reads
 * PostgreSQL, counted when such a check ends refused: lib/auth/api-keys/unknown-key-throttle.ts): 60 per 15 minutes.
 * The per-organisation counter above lives in each organisation's slot, so a forged key sent with a new organisation id
 * each time would cost PostgreSQL on every request; a real client meets a refusal that reads PostgreSQL a few times a
 * day (a revoked or mistyped key, cached as refused for a minute after).
 * domain-verify, per organisation: 30 per 10 minutes. An admin retries while DNS propagates, a few times per domain;
 * each verify is an outbound DNS-over-HTTPS request of up to 3 s, so a loop on it is held to one every 20 s.
 */
export const THROTTLE_LIMITS = {
  'invite-create': { limit: 120, windowSeconds: 600 },
  'invite-resend': { limit: 5, windowSeconds: 3_600 },
  'invite-accept': { limit: 20, windowSeconds: 600 },
  login: { limit: 10, windowSeconds: 900 },
  'login-address': { limit: 10, windowSeconds: 900 },
  'login-ip': { limit: 100, windowSeconds: 900 },
  'password-reset': { limit: 5, windowSeconds: 3_600 },
  'mfa-verify': { limit: 10, windowSeconds: 900 },
  'tenant-resolve': { limit: 60, windowSeconds: 60 },
  'mfa-reauth': { limit: 10, windowSeconds: 900 },
  'password-reset-ip': { limit: 30, windowSeconds: 3_600 },
  'password-reset-confirm-ip': { limit: 20, windowSeconds: 900 },
  'mfa-verify-ip': { limit: 100, windowSeconds: 900 },
  'refresh-ip': { limit: 600, windowSeconds: 900 },
  'mfa-recover-ip': { limit: 30, windowSeconds: 900 },
  'oidc-audit-ip': { limit: 20, windowSeconds: 900 },
  'oidc-audit-org': { limit: 200, windowSeconds: 3_600 },
  'domain-verify': { limit: 30, windowSeconds: 600 },
  'oidc-callback': { limit: 100, windowSeconds: 900 },
  'handoff-exchange': { limit: 600, windowSeconds: 900 },
  'passkey-options-ip': { limit: 100, windowSeconds: 900 },
  'passkey-verify-ip': { limit: 100, windowSeconds: 900 },
  'api-key-refused-ip': { limit: 60, windowSeconds: 900 },
  'api-key-miss-ip': { limit: 60, windowSeconds: 900 },
} as const satisfies Partial<Record<ThrottleAction, ThrottleLimit>>;

export type LimitedAction = keyof typeof THROTTLE_LIMITS;

/**
 * The wait before the derivation once an email's login counter is past its limit in the window: firstMs for the first
 * attempt over it, doubling per attempt, never above maxMs. A timer, so a waiting sign-in costs no CPU; maxMs bounds
 * what the right password from a clean address can be kept waiting (docs/design/sign-in.md#login-throttles).
 */
export const SIGN_IN_DELAY = { firstMs: 250, maxMs: 4_000 } as const;
