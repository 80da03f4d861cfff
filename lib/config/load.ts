// Turns a raw environment into the typed Config, or throws one ConfigError naming every offending variable.
import { envSchemaFor, type AppEnv, type EnvValues } from './schema.ts';
import { parseSecretsKeys, type SecretKey } from './secrets-keys.ts';
import { parseSigningKeys, type SigningKey, type StoredSigningAlgorithm } from './signing-keys.ts';
import { parseOidcProviders, type OidcProviderConfig } from './oidc-providers.ts';
import { parseOperatorTokens, type OperatorCredential } from './operator-tokens.ts';
import { parseCorsOrigins } from './cors-origins.ts';
import { parseHandoffAudiences } from './handoff-audiences.ts';
import { parsePasswordBreachCheck, type PasswordBreachCheck } from './password-breach.ts';
import { parsePasskeyRelyingParty, type PasskeyRelyingParty } from './passkey-relying-party.ts';
import { INVITE_TTL_SECONDS, JOB_CACHE_TTL_SECONDS, SYRVE_RECONNECT_COOLDOWN_SECONDS, SYRVE_SESSION_CACHE_SECONDS } from '../keys/index.ts';

/** Far above any real team's pending invitations; low enough that one organisation's index stays small (docs/design/limits.md#limits). */
export const INVITE_MAX_ACTIVE_PER_ORG = 1_000;

/**
 * The longest an access token may live: the verifier refuses any token whose exp − iat (or exp − now) is longer, so a
 * revoked session's denylist entry, which lives this long (logout, refresh reuse, revoke-all, reset), outlives every
 * token of it; the denylist repair (lib/runtime/revocation/repair-denylist.ts) writes missing entries again for sessions
 * revoked within it (docs/design/revocation.md#denylist-repair).
 */
export const ACCESS_TOKEN_MAX_LIFETIME_SECONDS = 900;
/** What sign-in gives an access token: the longest allowed, since the denylist covers that long anyway. */
export const ACCESS_TOKEN_TTL_SECONDS = 900;
/** A signed-in session lasts a working day at most; its refresh tokens and active context end with it. */
export const SESSION_TTL_SECONDS = 43_200;
/**
 * A session not refreshed for two hours ends at its next refresh: a client in use refreshes at least once per access
 * token (15 minutes), so this is an abandoned one, and it ends well before the working day does.
 */
export const SESSION_IDLE_TIMEOUT_SECONDS = 7_200;
/** Long enough for a client to retry a refresh whose reply was lost; short next to the token's life (docs/design/sign-in.md#a-retried-refresh). */
export const REFRESH_RETRY_GRACE_SECONDS = 30;
/** Ended sessions are kept a month (who signed in from where, for the owner and support), then deleted. */
export const SESSION_RETENTION_DAYS = 30;
/** A finished audit export's file is for downloading, not for keeping: a week. */
export const EXPORT_RETENTION_DAYS = 7;

/** Per task and run: enough for a few hundred index members or sessions, small enough for one Worker invocation. */
export const CRON_TASK_COMMAND_BUDGET = 1_000;
export const CRON_TASK_TIME_BUDGET_MS = 5_000;
/** The deployments' schedule, every whole 5 minutes: wrangler.toml's and sst.config.ts's crons (test/unit/deploy-config.test.ts holds them to it). */
export const CRON_INTERVAL_SECONDS = 300;

export interface RestEndpoint {
  url: string;
  token: string;
}

/**
 * Which bearer tokens are accepted, and how sign-in signs its own (docs/api.md#authentication). `hs256` is the dev/test
 * mode and is used only when neither `signing` nor `external` is configured.
 */
export interface AuthConfig {
  /** dev/test: one shared secret verifies a dev identity provider's tokens and signs sign-in's own. */
  hs256?: { secret: string; issuer?: string; audience?: string };
  /** Sign-in's own tokens: the first key signs, every key is published at /.well-known/jwks.json. */
  signing?: { keys: SigningKey[]; issuer: string; audience: string };
  /**
   * Sign-in's own tokens, signed with the keys kept in PostgreSQL (lib/auth/signing-keys/): the current one signs,
   * current, next and previous verify and are published. `alg` is the algorithm of keys made from now on.
   */
  stored?: { alg: StoredSigningAlgorithm; issuer: string; audience: string };
  /** An external identity provider's RS256 tokens, verified against its JWKS. */
  external?: { jwksUrl: string; issuer: string; audience: string };
}

export interface Config {
  appEnv: AppEnv;
  port: number;
  keyPrefix: string;
  redis: RestEndpoint;
  revocationRedis: RestEndpoint;
  databaseUrl: string;
  neonLocalProxyUrl?: string;
  auth: AuthConfig;
  /** The secret box's keys (Syrve passwords; later TOTP secrets): the first one seals, all open. */
  secretsKeys: SecretKey[];
  indexHashKey: string;
  /** The credential-rotation webhook's Standard Webhooks secret (`whsec_…`). */
  webhookSecret?: string;
  inviteTtlSeconds: number;
  inviteMaxActivePerOrg: number;
  /** Multiplies the API rate limits' defaults (lib/runtime/ratelimit/limits.ts); 1 except under APP_ENV=test. */
  rateLimitScale: number;
  accessTokenMaxLifetimeSeconds: number;
  /**
   * Sign-in: the access tokens' lifetime (≤ accessTokenMaxLifetimeSeconds), the sessions' longest life, how long one may
   * go unrefreshed, and how long a spent refresh token may be retried.
   */
  signIn: { accessTokenTtlSeconds: number; sessionTtlSeconds: number; sessionIdleTimeoutSeconds: number; refreshRetryGraceSeconds: number };
  /** What the scheduled retention keeps, in days: ended sessions, finished audit exports. */
  retention: { sessionDays: number; exportDays: number };
  /** Password reset, when PASSWORD_RESET_LINK_BASE is set: the link's base (built from configuration, never a Host header). */
  passwordReset?: { linkBase: string };
  /** The breached-password check of every password being set (lib/auth/breached-password/). */
  passwordBreach: PasswordBreachCheck;
  /** Invitations delivered by email, when INVITE_LINK_BASE is set: the link's base (from configuration, never a Host header). */
  inviteLinkBase?: string;
  /** The HTTP email API notifications go through (lib/notify/email-api.ts). */
  emailApi?: { url: string; token: string; from: string };
  /** The apps (token audiences) an SSO handoff may hand a session to; empty: handoff is off. */
  ssoHandoffAudiences: readonly string[];
  /** The apps whose exchange must present a client secret, each with the secret's SHA-256 (hex); never the secret. */
  ssoHandoffClientSecretDigests: ReadonlyMap<string, string>;
  /** OpenID providers sign-in may use (OIDC_PROVIDERS); empty: OIDC sign-in is off. */
  oidcProviders: readonly OidcProviderConfig[];
  /** Who may use the /ops routes (OPERATOR_TOKEN_HASHES); empty: operator access is off. */
  operators: readonly OperatorCredential[];
  /** Browser origins answered with CORS headers (CORS_ORIGINS), each exact; empty: no CORS headers at all. */
  corsOrigins: readonly string[];
  syrve: { sessionCacheSeconds: number; reconnectCooldownSeconds: number };
  /** intervalSeconds: how often the deployment runs the scheduled function, on whole multiples of it (CRON_INTERVAL_SECONDS). */
  cron: { taskCommandBudget: number; taskTimeBudgetMs: number; intervalSeconds: number };
  jobCacheTtlSeconds: number;
  /** The admin console at /console (CONSOLE_ENABLED; default: on in dev, off elsewhere). */
  console: { enabled: boolean };
  /** The DNS-over-HTTPS resolver that verifies custom domains (DOMAIN_VERIFY_DOH_URL); unset: verification answers 503. */
  domainVerify?: { dohUrl: string };
  /** Passkeys' relying party (PASSKEY_RP_ID, PASSKEY_ORIGINS, PASSKEY_RP_NAME); dev defaults to localhost. */
  passkeys: PasskeyRelyingParty;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** The configuration of `env`, or a ConfigError listing every problem found in it at once (never a value). */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = stripEmpty(env);
  const schema = envSchemaFor(present);
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      return `${name}: ${present[name] === undefined ? 'required, and not set' : issue.message}`;
    });
    throw new ConfigError([...problems, ...problemsBetween(schema, present, parsed.error.issues)]);
  }
  return configFrom(parsed.data);
}

/** What a required variable that failed its own check stands in as while the others are checked (every problem naming it is dropped). */
const STAND_IN: Partial<Record<keyof EnvValues, unknown>> = {
  PORT: 8787,
  KEY_PREFIX: 'standin',
  UPSTASH_REDIS_REST_URL: 'https://stand-in.invalid',
  UPSTASH_REDIS_REST_TOKEN: 'stand-in',
  DATABASE_URL: 'postgres://stand-in.invalid/db',
  INDEX_HASH_KEY: 'stand-in',
};

/**
 * The checks between variables, over those that did parse, so one look lists every problem rather than a round per
 * kind (`npm run config:check`). A problem naming a variable that already failed is left out (its own is enough), and
 * nothing is said when the environment itself (APP_ENV) failed, or a check could not run without what failed.
 */
function problemsBetween(
  schema: ReturnType<typeof envSchemaFor>,
  present: Record<string, string>,
  issues: ReadonlyArray<{ path: readonly PropertyKey[] }>,
): string[] {
  const failed = [...new Set(issues.map((issue) => String(issue.path[0])))];
  if (failed.includes('APP_ENV')) return [];
  const rest = schema
    .omit(Object.fromEntries(failed.map((name) => [name, true])) as Partial<Record<keyof EnvValues, true>>)
    .safeParse(present);
  if (!rest.success) return [];
  const standIns = Object.fromEntries(failed.flatMap((name) => (name in STAND_IN ? [[name, STAND_IN[name as keyof EnvValues]]] : [])));
  try {
    // An optional variable that failed is unset here; a check that still cannot run without it throws, and says nothing.
    configFrom({ ...rest.data, ...standIns } as unknown as EnvValues);
  } catch (error) {
    if (error instanceof ConfigError)
      return error.problems.filter((problem) => !failed.some((name) => new RegExp(`\\b${name}\\b`).test(problem)));
  }
  return [];
}

function configFrom(e: EnvValues): Config {
  const problems: string[] = [];
  const production = e.APP_ENV === 'staging' || e.APP_ENV === 'prod';

  let secretsKeys: SecretKey[] = [];
  if (e.SECRETS_KEYS !== undefined) {
    try {
      secretsKeys = parseSecretsKeys(e.SECRETS_KEYS);
    } catch (error) {
      problems.push(`SECRETS_KEYS: ${(error as Error).message}`);
    }
  }

  let oidcProviders: OidcProviderConfig[] = [];
  if (e.OIDC_PROVIDERS !== undefined) {
    const parsedProviders = parseOidcProviders(e.OIDC_PROVIDERS, e.APP_ENV);
    oidcProviders = parsedProviders.providers;
    problems.push(...parsedProviders.problems);
  }

  let operators: OperatorCredential[] = [];
  if (e.OPERATOR_TOKEN_HASHES !== undefined) {
    const parsedOperators = parseOperatorTokens(e.OPERATOR_TOKEN_HASHES, e.APP_ENV);
    operators = parsedOperators.operators;
    problems.push(...parsedOperators.problems);
  }

  let corsOrigins: string[] = [];
  if (e.CORS_ORIGINS !== undefined) {
    const parsedOrigins = parseCorsOrigins(e.CORS_ORIGINS, e.APP_ENV);
    corsOrigins = parsedOrigins.origins;
    problems.push(...parsedOrigins.problems);
  }

  if ((e.REVOCATION_REDIS_REST_URL === undefined) !== (e.REVOCATION_REDIS_REST_TOKEN === undefined)) {
    problems.push('REVOCATION_REDIS_REST_URL and REVOCATION_REDIS_REST_TOKEN must be set together');
  }
  if (e.RATE_LIMIT_SCALE !== undefined && e.APP_ENV !== 'test') {
    problems.push("RATE_LIMIT_SCALE: allowed only with APP_ENV=test; deployments keep the table's limits and plans");
  }
  if (e.INVITE_TTL_SECONDS !== undefined && e.APP_ENV !== 'test') {
    problems.push('INVITE_TTL_SECONDS: allowed only with APP_ENV=test; invites live exactly 3 hours');
  }
  if (e.JOB_CACHE_TTL_SECONDS !== undefined && e.APP_ENV !== 'test') {
    problems.push(`JOB_CACHE_TTL_SECONDS: allowed only with APP_ENV=test; the job cache lives ${JOB_CACHE_TTL_SECONDS} s`);
  }

  if (production) {
    if (isLoopback(e.UPSTASH_REDIS_REST_URL)) problems.push('UPSTASH_REDIS_REST_URL: a localhost Redis is not allowed in staging/prod');
    if (!e.UPSTASH_REDIS_REST_URL.startsWith('https:')) problems.push('UPSTASH_REDIS_REST_URL: must be https in staging/prod');
    if (e.REVOCATION_REDIS_REST_URL === undefined) {
      problems.push('REVOCATION_REDIS_REST_URL: a separate revocation store is required in staging/prod');
    } else {
      if (isLoopback(e.REVOCATION_REDIS_REST_URL))
        problems.push('REVOCATION_REDIS_REST_URL: a localhost revocation store is not allowed in staging/prod');
      if (!e.REVOCATION_REDIS_REST_URL.startsWith('https:')) problems.push('REVOCATION_REDIS_REST_URL: must be https in staging/prod');
    }
    if (isLoopback(e.DATABASE_URL)) problems.push('DATABASE_URL: a localhost database is not allowed in staging/prod');
    if (e.NEON_LOCAL_PROXY_URL !== undefined) problems.push('NEON_LOCAL_PROXY_URL: the local Neon proxy is for dev and test only');
    if (e.AUTH_JWT_SECRET !== undefined && !hs256Allowed(e))
      problems.push(
        'AUTH_JWT_SECRET: HS256 secrets are accepted in dev and test only (or with ACCESS_TOKEN_SIGNING=HS256 and ACCESS_TOKEN_ALLOW_HS256=true); use the stored keys (ACCESS_TOKEN_SIGNING) or AUTH_SIGNING_KEYS',
      );
    if (e.SECRETS_KEYS === undefined) problems.push('SECRETS_KEYS: required in staging/prod');
    if (e.AUTH_JWKS_URL !== undefined && !e.AUTH_JWKS_URL.startsWith('https:'))
      problems.push('AUTH_JWKS_URL: must be https in staging/prod');
    if (e.WEBHOOK_SECRET === undefined) problems.push('WEBHOOK_SECRET: required in staging/prod');
  }

  const auth = authConfig(e, problems);
  const passkeys = parsePasskeyRelyingParty(
    { rpId: e.PASSKEY_RP_ID, origins: e.PASSKEY_ORIGINS, rpName: e.PASSKEY_RP_NAME },
    e.APP_ENV,
    e.PORT,
  );
  problems.push(...passkeys.problems);
  let handoffAudiences: string[] = [];
  let handoffClientSecretDigests: ReadonlyMap<string, string> = new Map();
  if (e.SSO_HANDOFF_AUDIENCES !== undefined) {
    const parsedAudiences = parseHandoffAudiences(e.SSO_HANDOFF_AUDIENCES, e.APP_ENV);
    handoffAudiences = parsedAudiences.audiences;
    handoffClientSecretDigests = parsedAudiences.clientSecretDigests;
    problems.push(...parsedAudiences.problems);
  }
  // A handoff to this deployment's own audience would mint fresh tokens from any token, outside refresh rotation.
  const ownAudiences = [auth?.signing?.audience ?? auth?.stored?.audience ?? e.AUTH_TOKEN_AUDIENCE, e.AUTH_AUDIENCE];
  if (handoffAudiences.some((audience) => ownAudiences.includes(audience))) {
    problems.push("SSO_HANDOFF_AUDIENCES: must not name this deployment's own audience (AUTH_TOKEN_AUDIENCE or AUTH_AUDIENCE)");
  }
  if (e.PASSWORD_RESET_LINK_BASE !== undefined && e.PASSWORD_RESET_LINK_BASE.includes('#')) {
    problems.push('PASSWORD_RESET_LINK_BASE: must not hold a fragment (#): the token is appended as one');
  }
  if (e.INVITE_LINK_BASE !== undefined && e.INVITE_LINK_BASE.includes('#')) {
    problems.push('INVITE_LINK_BASE: must not hold a fragment (#): the token is appended as one');
  }
  if (production && e.INVITE_LINK_BASE !== undefined) {
    if (!e.INVITE_LINK_BASE.startsWith('https:') || isLoopback(e.INVITE_LINK_BASE))
      problems.push('INVITE_LINK_BASE: must be a public https URL in staging/prod');
    // Emailed invites are the console's default: a deployment that could only answer 503 to them refuses to start.
    if (e.NOTIFY_EMAIL_API_URL === undefined) problems.push('NOTIFY_EMAIL_API_URL: required in staging/prod when INVITE_LINK_BASE is set');
  }
  const emailVars = [e.NOTIFY_EMAIL_API_URL, e.NOTIFY_EMAIL_API_TOKEN, e.NOTIFY_EMAIL_FROM];
  if (emailVars.some((v) => v !== undefined) && emailVars.some((v) => v === undefined)) {
    problems.push('NOTIFY_EMAIL_API_URL, NOTIFY_EMAIL_API_TOKEN and NOTIFY_EMAIL_FROM must be set together');
  }
  if (production && e.PASSWORD_RESET_LINK_BASE !== undefined) {
    if (!e.PASSWORD_RESET_LINK_BASE.startsWith('https:') || isLoopback(e.PASSWORD_RESET_LINK_BASE))
      problems.push('PASSWORD_RESET_LINK_BASE: must be a public https URL in staging/prod');
    // A reset nobody receives is a locked-out user: refuse to start rather than pretend to send.
    if (e.NOTIFY_EMAIL_API_URL === undefined)
      problems.push('NOTIFY_EMAIL_API_URL: required in staging/prod when PASSWORD_RESET_LINK_BASE is set');
  }
  if (
    production &&
    e.NOTIFY_EMAIL_API_URL !== undefined &&
    (!e.NOTIFY_EMAIL_API_URL.startsWith('https:') || isLoopback(e.NOTIFY_EMAIL_API_URL))
  ) {
    problems.push('NOTIFY_EMAIL_API_URL: must be a public https URL in staging/prod');
  }
  if (e.DOMAIN_VERIFY_DOH_URL !== undefined) problems.push(...dohUrlProblems(e.DOMAIN_VERIFY_DOH_URL, production));
  const passwordBreach = parsePasswordBreachCheck(e, e.APP_ENV);
  problems.push(...passwordBreach.problems);
  const maxLifetime = e.ACCESS_TOKEN_MAX_LIFETIME_SECONDS ?? ACCESS_TOKEN_MAX_LIFETIME_SECONDS;
  const accessTokenTtl = e.ACCESS_TOKEN_TTL_SECONDS ?? Math.min(ACCESS_TOKEN_TTL_SECONDS, maxLifetime);
  if (accessTokenTtl > maxLifetime) {
    problems.push('ACCESS_TOKEN_TTL_SECONDS: must not exceed ACCESS_TOKEN_MAX_LIFETIME_SECONDS (the verifier refuses longer tokens)');
  }
  const idleTimeout = e.SESSION_IDLE_TIMEOUT_SECONDS ?? SESSION_IDLE_TIMEOUT_SECONDS;
  if (idleTimeout < accessTokenTtl) {
    // A client that refreshes when its access token runs out would find its session idle every time.
    problems.push('SESSION_IDLE_TIMEOUT_SECONDS: must be at least ACCESS_TOKEN_TTL_SECONDS (a client refreshes once per access token)');
  }
  if (problems.length > 0 || auth === undefined || passkeys.relyingParty === undefined) throw new ConfigError(problems);

  const redis = { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN };
  return {
    appEnv: e.APP_ENV,
    port: e.PORT,
    keyPrefix: e.KEY_PREFIX,
    redis,
    // dev/test may share the main store; staging/prod were refused above without a separate one.
    revocationRedis:
      e.REVOCATION_REDIS_REST_URL !== undefined && e.REVOCATION_REDIS_REST_TOKEN !== undefined
        ? { url: e.REVOCATION_REDIS_REST_URL, token: e.REVOCATION_REDIS_REST_TOKEN }
        : redis,
    databaseUrl: e.DATABASE_URL,
    ...(e.NEON_LOCAL_PROXY_URL !== undefined ? { neonLocalProxyUrl: e.NEON_LOCAL_PROXY_URL } : {}),
    auth,
    secretsKeys,
    indexHashKey: e.INDEX_HASH_KEY,
    ...(e.WEBHOOK_SECRET !== undefined ? { webhookSecret: e.WEBHOOK_SECRET } : {}),
    inviteTtlSeconds: e.INVITE_TTL_SECONDS ?? INVITE_TTL_SECONDS,
    inviteMaxActivePerOrg: e.INVITE_MAX_ACTIVE_PER_ORG ?? INVITE_MAX_ACTIVE_PER_ORG,
    rateLimitScale: e.RATE_LIMIT_SCALE ?? 1,
    accessTokenMaxLifetimeSeconds: maxLifetime,
    signIn: {
      accessTokenTtlSeconds: accessTokenTtl,
      sessionTtlSeconds: e.SESSION_TTL_SECONDS ?? SESSION_TTL_SECONDS,
      sessionIdleTimeoutSeconds: idleTimeout,
      refreshRetryGraceSeconds: e.REFRESH_RETRY_GRACE_SECONDS ?? REFRESH_RETRY_GRACE_SECONDS,
    },
    retention: {
      sessionDays: e.SESSION_RETENTION_DAYS ?? SESSION_RETENTION_DAYS,
      exportDays: e.EXPORT_RETENTION_DAYS ?? EXPORT_RETENTION_DAYS,
    },
    ssoHandoffAudiences: handoffAudiences,
    ssoHandoffClientSecretDigests: handoffClientSecretDigests,
    ...(e.INVITE_LINK_BASE !== undefined ? { inviteLinkBase: e.INVITE_LINK_BASE } : {}),
    ...(e.PASSWORD_RESET_LINK_BASE !== undefined ? { passwordReset: { linkBase: e.PASSWORD_RESET_LINK_BASE } } : {}),
    passwordBreach: passwordBreach.check,
    ...(e.NOTIFY_EMAIL_API_URL !== undefined && e.NOTIFY_EMAIL_API_TOKEN !== undefined && e.NOTIFY_EMAIL_FROM !== undefined
      ? { emailApi: { url: e.NOTIFY_EMAIL_API_URL, token: e.NOTIFY_EMAIL_API_TOKEN, from: e.NOTIFY_EMAIL_FROM } }
      : {}),
    oidcProviders,
    operators,
    corsOrigins,
    syrve: {
      sessionCacheSeconds: e.SYRVE_SESSION_CACHE_SECONDS ?? SYRVE_SESSION_CACHE_SECONDS,
      reconnectCooldownSeconds: e.SYRVE_RECONNECT_COOLDOWN_SECONDS ?? SYRVE_RECONNECT_COOLDOWN_SECONDS,
    },
    cron: {
      taskCommandBudget: e.CRON_TASK_COMMAND_BUDGET ?? CRON_TASK_COMMAND_BUDGET,
      taskTimeBudgetMs: e.CRON_TASK_TIME_BUDGET_MS ?? CRON_TASK_TIME_BUDGET_MS,
      intervalSeconds: e.CRON_INTERVAL_SECONDS ?? CRON_INTERVAL_SECONDS,
    },
    jobCacheTtlSeconds: e.JOB_CACHE_TTL_SECONDS ?? JOB_CACHE_TTL_SECONDS,
    console: { enabled: e.CONSOLE_ENABLED === undefined ? e.APP_ENV === 'dev' : e.CONSOLE_ENABLED === 'true' },
    ...(e.DOMAIN_VERIFY_DOH_URL !== undefined ? { domainVerify: { dohUrl: e.DOMAIN_VERIFY_DOH_URL } } : {}),
    passkeys: passkeys.relyingParty,
  };
}

/**
 * The resolver decides who owns a domain, so its answers must not be forgeable on the way: https, except a loopback
 * fake in dev and test (local/emulators/doh). No credentials or fragment (the query string is ours to set).
 */
function dohUrlProblems(raw: string, production: boolean): string[] {
  const url = new URL(raw);
  const problems: string[] = [];
  if (production && (url.protocol !== 'https:' || isLoopback(raw)))
    problems.push('DOMAIN_VERIFY_DOH_URL: must be a public https URL in staging/prod');
  if (!production && url.protocol !== 'https:' && !isLoopback(raw))
    problems.push('DOMAIN_VERIFY_DOH_URL: must be https (plain http only for a loopback resolver in dev and test)');
  if (url.username !== '' || url.password !== '' || url.hash !== '')
    problems.push('DOMAIN_VERIFY_DOH_URL: must not hold credentials or a fragment');
  return problems;
}

function authConfig(e: EnvValues, problems: string[]): AuthConfig | undefined {
  const auth: AuthConfig = {};
  if (e.AUTH_JWKS_URL !== undefined) {
    if (e.AUTH_ISSUER === undefined || e.AUTH_AUDIENCE === undefined) {
      problems.push('AUTH_ISSUER and AUTH_AUDIENCE: required with AUTH_JWKS_URL');
    } else {
      auth.external = { jwksUrl: e.AUTH_JWKS_URL, issuer: e.AUTH_ISSUER, audience: e.AUTH_AUDIENCE };
    }
  }
  const signingMode = storedSigningMode(e, problems);
  if (signingMode !== undefined) {
    if (e.SECRETS_KEYS === undefined)
      problems.push(`SECRETS_KEYS: required with ACCESS_TOKEN_SIGNING=${signingMode} (it seals the private keys)`);
    const production = e.APP_ENV === 'staging' || e.APP_ENV === 'prod';
    const issuer = e.AUTH_TOKEN_ISSUER ?? (production ? undefined : `runstate-${e.APP_ENV}`);
    if (issuer === undefined) problems.push('AUTH_TOKEN_ISSUER: required in staging/prod');
    else if (issuer === e.AUTH_ISSUER)
      problems.push("AUTH_TOKEN_ISSUER: must differ from AUTH_ISSUER (a token's issuer picks the key that verifies it)");
    else auth.stored = { alg: signingMode, issuer, audience: e.AUTH_TOKEN_AUDIENCE ?? 'runstate' };
  } else if (e.AUTH_SIGNING_KEYS !== undefined) {
    let keys: SigningKey[] = [];
    try {
      keys = parseSigningKeys(e.AUTH_SIGNING_KEYS);
    } catch (error) {
      problems.push(`AUTH_SIGNING_KEYS: ${(error as Error).message}`);
    }
    if (e.AUTH_TOKEN_ISSUER === undefined) problems.push('AUTH_TOKEN_ISSUER: required with AUTH_SIGNING_KEYS');
    else if (e.AUTH_TOKEN_ISSUER === e.AUTH_ISSUER)
      problems.push("AUTH_TOKEN_ISSUER: must differ from AUTH_ISSUER (a token's issuer picks the key that verifies it)");
    if (keys.length > 0 && e.AUTH_TOKEN_ISSUER !== undefined) {
      auth.signing = { keys, issuer: e.AUTH_TOKEN_ISSUER, audience: e.AUTH_TOKEN_AUDIENCE ?? 'runstate' };
    }
  } else if (e.AUTH_TOKEN_ISSUER !== undefined || e.AUTH_TOKEN_AUDIENCE !== undefined) {
    problems.push('AUTH_TOKEN_ISSUER and AUTH_TOKEN_AUDIENCE: only with AUTH_SIGNING_KEYS or ACCESS_TOKEN_SIGNING=ES256|EdDSA');
  }
  if (e.ACCESS_TOKEN_SIGNING === 'HS256' && e.AUTH_JWT_SECRET === undefined)
    problems.push('AUTH_JWT_SECRET: required with ACCESS_TOKEN_SIGNING=HS256');
  if (auth.external === undefined && auth.signing === undefined && auth.stored === undefined && e.AUTH_JWT_SECRET !== undefined) {
    auth.hs256 = {
      secret: e.AUTH_JWT_SECRET,
      ...(e.AUTH_ISSUER !== undefined ? { issuer: e.AUTH_ISSUER } : {}),
      ...(e.AUTH_AUDIENCE !== undefined ? { audience: e.AUTH_AUDIENCE } : {}),
    };
  }
  if (auth.hs256 === undefined && auth.signing === undefined && auth.stored === undefined && auth.external === undefined) {
    if (e.AUTH_JWKS_URL === undefined && e.AUTH_SIGNING_KEYS === undefined && signingMode === undefined) {
      problems.push(
        'AUTH_JWT_SECRET (dev/test), or AUTH_SIGNING_KEYS and/or AUTH_JWKS_URL with AUTH_ISSUER and AUTH_AUDIENCE: one is required',
      );
    }
    return undefined;
  }
  return auth;
}

/** ACCESS_TOKEN_SIGNING with HS256 said out loud twice: a shared secret every verifier holds can mint tokens. */
function hs256Allowed(e: EnvValues): boolean {
  return e.ACCESS_TOKEN_SIGNING === 'HS256' && e.ACCESS_TOKEN_ALLOW_HS256 === 'true';
}

/**
 * The algorithm of the stored keys, when they sign: ACCESS_TOKEN_SIGNING=ES256|EdDSA, or by default in staging/prod
 * without AUTH_SIGNING_KEYS (ES256). HS256 is refused there unless ACCESS_TOKEN_ALLOW_HS256=true.
 */
function storedSigningMode(e: EnvValues, problems: string[]): StoredSigningAlgorithm | undefined {
  const production = e.APP_ENV === 'staging' || e.APP_ENV === 'prod';
  const chosen = e.ACCESS_TOKEN_SIGNING;
  if (chosen !== undefined && e.AUTH_SIGNING_KEYS !== undefined) {
    problems.push('ACCESS_TOKEN_SIGNING: not with AUTH_SIGNING_KEYS (the configured keys sign where they are set)');
    return undefined;
  }
  if (chosen === 'HS256') {
    if (production && !hs256Allowed(e))
      problems.push('ACCESS_TOKEN_SIGNING: HS256 is refused in staging/prod unless ACCESS_TOKEN_ALLOW_HS256=true (use ES256 or EdDSA)');
    // The HS256 secret signs only where no other verifier is configured (authConfig): say so rather than answer 503.
    if (e.AUTH_JWKS_URL !== undefined) problems.push('ACCESS_TOKEN_SIGNING: HS256 is not with AUTH_JWKS_URL (use ES256 or EdDSA)');
    return undefined;
  }
  if (chosen !== undefined) return chosen;
  return production && e.AUTH_SIGNING_KEYS === undefined ? 'ES256' : undefined;
}

/** An empty variable means "unset" (a common shell and CI habit). */
function stripEmpty(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') out[name] = value;
  return out;
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host.startsWith('127.') || host === '::1' || host === '0.0.0.0';
}
