// The whole environment (docs/api.md#environment) as zod schemas, one per variable; `loadConfig` also refuses unsafe production settings.
import * as z from 'zod';
import { INVITE_TTL_SECONDS, JOB_CACHE_TTL_SECONDS, KEY_ENVS, SYRVE_RECONNECT_COOLDOWN_MAX_SECONDS, type KeyEnv } from '../keys/index.ts';
import { PASSWORD_BREACH_MODES } from './password-breach.ts';

/** Each environment has its own keys, so the list is the keys' (lib/keys/namespace.ts). */
export const APP_ENVS = KEY_ENVS;
export type AppEnv = KeyEnv;

// Each variable's schema is built only when the environment sets it (or it has a default or is required): a cold start
// then builds a score of zod schemas rather than some two hundred (docs/design/layers.md#what-a-cold-start-evaluates).
const optionalText = () => z.string().trim().min(1).optional();
const httpUrl = () => z.url({ protocol: /^https?$/ });

/** Every variable's schema, built on call; the order is the order of the checks, and so of the problems reported. */
const ENV_FIELDS = {
  APP_ENV: () => z.enum(APP_ENVS).default('dev'),
  PORT: () => z.coerce.number().int().min(1).max(65535).default(8787),
  // The first segment of every Redis key (docs/design/keys.md). `mhpay` is a historical name that means nothing here,
  // kept as the default on purpose: a deployment that never set KEY_PREFIX (wrangler.toml leaves it commented out)
  // holds all its keys under it, and a new default would strand them at the upgrade — pending invites, MFA
  // challenges, throttle windows, active contexts, caches. A new deployment may choose its own name.
  KEY_PREFIX: () =>
    z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,15}$/, 'lowercase letters, digits and hyphens, at most 16 characters')
      .default('mhpay'),
  UPSTASH_REDIS_REST_URL: () => httpUrl(),
  UPSTASH_REDIS_REST_TOKEN: () => z.string().min(1),
  REVOCATION_REDIS_REST_URL: () => httpUrl().optional(),
  REVOCATION_REDIS_REST_TOKEN: () => optionalText(),
  DATABASE_URL: () => z.url({ protocol: /^postgres(ql)?$/ }),
  /** Dev/test only: the local Neon proxy (WebSocket + SQL-over-HTTP) in front of a plain PostgreSQL. */
  NEON_LOCAL_PROXY_URL: () => httpUrl().optional(),
  AUTH_JWT_SECRET: () => z.string().min(32, 'at least 32 characters').optional(),
  AUTH_JWKS_URL: () => httpUrl().optional(),
  AUTH_ISSUER: () => optionalText(),
  AUTH_AUDIENCE: () => optionalText(),
  /** Sign-in's own signing keys: a JSON array of private JWKs (Ed25519 or RSA ≥ 2048 bits, each with a kid); the first signs. */
  AUTH_SIGNING_KEYS: () => optionalText(),
  /**
   * How sign-in signs its access tokens: ES256 or EdDSA with keys kept sealed in PostgreSQL and rotated by
   * `npm run keys:rotate` (the default in staging/prod without AUTH_SIGNING_KEYS), or HS256 with AUTH_JWT_SECRET (the
   * default in dev/test; refused in staging/prod unless ACCESS_TOKEN_ALLOW_HS256=true). docs/design/signing-keys.md.
   */
  ACCESS_TOKEN_SIGNING: () => z.enum(['ES256', 'EdDSA', 'HS256']).optional(),
  /** staging/prod: `true` lets ACCESS_TOKEN_SIGNING=HS256 through, an explicit choice to share the secret with every verifier. */
  ACCESS_TOKEN_ALLOW_HS256: () => z.enum(['true', 'false']).optional(),
  /** The `iss` and `aud` of sign-in's own tokens when they are signed with AUTH_SIGNING_KEYS or the stored keys. */
  AUTH_TOKEN_ISSUER: () => optionalText(),
  AUTH_TOKEN_AUDIENCE: () => optionalText(),
  /**
   * Apps an SSO handoff may hand a session to (their token audiences), comma-separated, each `<app>` or
   * `<app>:<sha256 hex of its client secret>` (then its exchange must present the secret); unset: no handoff. Checked
   * by lib/config/handoff-audiences.ts, which never echoes a value.
   */
  SSO_HANDOFF_AUDIENCES: () => optionalText(),
  /** Where a password-reset link points (the reset page), e.g. https://app.example.com/auth/password-reset; unset: reset is off. */
  PASSWORD_RESET_LINK_BASE: () => httpUrl().optional(),
  /** Where an emailed invitation's link points (the invite page), e.g. https://app.example.com/invites/accept; unset: invites are not emailed. */
  INVITE_LINK_BASE: () => httpUrl().optional(),
  /** Whether a password being set is checked against a breached-password range API, and what a failed check does (lib/config/password-breach.ts). */
  PASSWORD_BREACH_CHECK: () => z.enum(PASSWORD_BREACH_MODES).optional(),
  /** The range API (`<url><5 hex>`): a mirror of Have I Been Pwned's; checked by lib/config/password-breach.ts. */
  PASSWORD_BREACH_API_URL: () => optionalText(),
  /** The range API's own deadline, covering the answer's body. */
  PASSWORD_BREACH_TIMEOUT_MS: () => z.coerce.number().int().min(100).max(10_000).optional(),
  /** An HTTP email API for notifications: POST { from, to, subject, text } with a bearer token. */
  NOTIFY_EMAIL_API_URL: () => httpUrl().optional(),
  NOTIFY_EMAIL_API_TOKEN: () => optionalText(),
  NOTIFY_EMAIL_FROM: () => z.email().max(254).optional(),
  /** OpenID providers for sign-in: a JSON array of {id, issuer, clientId, clientSecret, redirectUri}; a secret (client secrets). */
  OIDC_PROVIDERS: () => optionalText(),
  /** Browser origins allowed to call with credentials (CORS), exact `scheme://host[:port]`, comma-separated; unset: none. */
  CORS_ORIGINS: () => optionalText(),
  /** Operators who may suspend tenants: `<operatorId>:<sha256 hex of their bearer secret>`, comma-separated; unset: no operator access. */
  OPERATOR_TOKEN_HASHES: () => optionalText(),
  /** Lifetime of the access tokens sign-in issues; at most ACCESS_TOKEN_MAX_LIFETIME_SECONDS. */
  ACCESS_TOKEN_TTL_SECONDS: () => z.coerce.number().int().min(60).max(86_400).optional(),
  /** How long a signed-in session lives at most: its refresh tokens and its active context end with it. */
  SESSION_TTL_SECONDS: () => z.coerce.number().int().min(300).max(2_592_000).optional(),
  /** How long a signed-in session may go unrefreshed: a refresh after that much idleness ends it. */
  SESSION_IDLE_TIMEOUT_SECONDS: () => z.coerce.number().int().min(60).max(2_592_000).optional(),
  /** How long after a refresh the same refresh token may be presented again (a lost reply's retry); 0: never. */
  REFRESH_RETRY_GRACE_SECONDS: () => z.coerce.number().int().min(0).max(300).optional(),
  /** Days an ended session (and its refresh tokens) is kept before the scheduled retention deletes it. */
  SESSION_RETENTION_DAYS: () => z.coerce.number().int().min(1).max(3650).optional(),
  /** Days a finished audit export (its job and file) is kept before the scheduled retention deletes it. */
  EXPORT_RETENTION_DAYS: () => z.coerce.number().int().min(1).max(3650).optional(),
  SECRETS_KEYS: () => optionalText(),
  INDEX_HASH_KEY: () => z.string().min(32, 'at least 32 characters'),
  WEBHOOK_SECRET: () =>
    z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{22,}={0,2}$/, 'whsec_ followed by the base64 of at least 16 random bytes')
      .optional(),
  /** Test-only override of the 3 h invite TTL, so expiry can be observed in seconds. */
  INVITE_TTL_SECONDS: () => z.coerce.number().int().min(1).max(INVITE_TTL_SECONDS).optional(),
  /** Test-only: multiplies the API rate limits' defaults, so a bench or a test of many calls by one user is not refused. */
  RATE_LIMIT_SCALE: () => z.coerce.number().int().min(1).max(100_000).optional(),
  /** Live invites one organisation may hold at once (docs/api.md#environment). */
  INVITE_MAX_ACTIVE_PER_ORG: () => z.coerce.number().int().min(1).max(100_000).optional(),
  /** The longest an access token may live; the denylist repair covers sessions revoked within it (docs/api.md#environment). */
  ACCESS_TOKEN_MAX_LIFETIME_SECONDS: () => z.coerce.number().int().min(60).max(86_400).optional(),
  /** Upper bound of a cached Syrve session's TTL when the upstream gives no expiry; 0 or less caches nothing. */
  SYRVE_SESSION_CACHE_SECONDS: () => z.coerce.number().int().min(-1).max(86_400).optional(),
  /** How long a connection stays shut after 7 failed reconnects before it may log in again. */
  SYRVE_RECONNECT_COOLDOWN_SECONDS: () => z.coerce.number().int().min(1).max(SYRVE_RECONNECT_COOLDOWN_MAX_SECONDS).optional(),
  /** Test-only override of the 120 s job-cache TTL (and so the stall threshold), so expiry can be observed in seconds. */
  JOB_CACHE_TTL_SECONDS: () => z.coerce.number().int().min(1).max(JOB_CACHE_TTL_SECONDS).optional(),
  /** What one scheduled task may spend per run: Redis commands and SQL statements, and milliseconds. */
  CRON_TASK_COMMAND_BUDGET: () => z.coerce.number().int().min(10).max(100_000).optional(),
  CRON_TASK_TIME_BUDGET_MS: () => z.coerce.number().int().min(100).max(60_000).optional(),
  /**
   * How often the deployment's trigger runs the scheduled function, in seconds: it fires at every whole multiple of it
   * (UTC), as wrangler.toml's and sst.config.ts's crons do. Only said here, never scheduled by it: a queued export's
   * expected start and the stall threshold follow from it (docs/design/jobs.md#background-jobs-the-audit-export).
   */
  CRON_INTERVAL_SECONDS: () => z.coerce.number().int().min(1).max(86_400).optional(),
  /** The admin console at /console (docs/console.md): on by default in dev only. */
  CONSOLE_ENABLED: () => z.enum(['true', 'false']).optional(),
  /** Passkeys' relying party: the domain credentials are scoped to, and the exact origins of the pages that run a ceremony (comma-separated); required outside dev. */
  PASSKEY_RP_ID: () => optionalText(),
  PASSKEY_ORIGINS: () => optionalText(),
  /** The name an authenticator shows beside the account; default runstate. */
  PASSKEY_RP_NAME: () => z.string().trim().min(1).max(64).optional(),
  /** A DNS-over-HTTPS resolver's JSON API (`GET ?name=…&type=TXT`) that checks custom domains' TXT records; unset: no verification. */
  DOMAIN_VERIFY_DOH_URL: () => httpUrl().optional(),
};

type EnvShape = { [K in keyof typeof ENV_FIELDS]: ReturnType<(typeof ENV_FIELDS)[K]> };
type EnvName = keyof EnvShape;

/** Variables checked even when unset: each has a default or is required (test/unit/config.test.ts holds this to ENV_FIELDS). */
export const ALWAYS_CHECKED: readonly EnvName[] = [
  'APP_ENV',
  'PORT',
  'KEY_PREFIX',
  'UPSTASH_REDIS_REST_URL',
  'UPSTASH_REDIS_REST_TOKEN',
  'DATABASE_URL',
  'INDEX_HASH_KEY',
];

function objectOf(names: EnvName[]): z.ZodObject<EnvShape> {
  // A partial shape parses to the same output as the whole one: each variable left out is optional and unset.
  return z.object(Object.fromEntries(names.map((name) => [name, ENV_FIELDS[name]()]))) as unknown as z.ZodObject<EnvShape>;
}

/** The schema of this environment: the variables it sets and those always checked, in ENV_FIELDS' order. */
export function envSchemaFor(env: Record<string, unknown>): z.ZodObject<EnvShape> {
  return objectOf((Object.keys(ENV_FIELDS) as EnvName[]).filter((name) => env[name] !== undefined || ALWAYS_CHECKED.includes(name)));
}

/** Every variable's schema (the launchers and the tests read its shape). */
export const fullEnvSchema = (): z.ZodObject<EnvShape> => objectOf(Object.keys(ENV_FIELDS) as EnvName[]);

export type EnvValues = z.output<z.ZodObject<EnvShape>>;
