// The two deployments against lib/config: every secret a deployed function needs is listed in wrangler.toml and in
// sst.config.ts (nothing more, nothing less), every variable is classified, and the staging worker is what it says.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unstable_readConfig } from 'wrangler';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config/index.ts';
import { fullEnvSchema } from '../../lib/config/schema.ts';
import { buildWorker } from '../../ops/build-worker.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WRANGLER_TOML = join(REPO_ROOT, 'wrangler.toml');

/** A valid production value for every secret of a deployment. */
const PROD_SECRETS: Record<string, string> = {
  UPSTASH_REDIS_REST_URL: 'https://main-store.upstash.example',
  UPSTASH_REDIS_REST_TOKEN: 'main-token',
  REVOCATION_REDIS_REST_URL: 'https://denylist-store.upstash.example',
  REVOCATION_REDIS_REST_TOKEN: 'denylist-token',
  DATABASE_URL: 'postgres://app:password@ep-example.eu-central-1.aws.neon.example/runstate',
  AUTH_TOKEN_ISSUER: 'https://auth.example/',
  SECRETS_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  INDEX_HASH_KEY: randomBytes(36).toString('base64url'),
  WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
  PASSKEY_RP_ID: 'example.com',
  PASSKEY_ORIGINS: 'https://app.example.com',
};
/** Settings that are not secret: [vars] / SST environment, all optional. */
const PLAIN_SETTINGS = [
  'APP_ENV',
  'KEY_PREFIX',
  'INVITE_MAX_ACTIVE_PER_ORG',
  'SYRVE_SESSION_CACHE_SECONDS',
  'SYRVE_RECONNECT_COOLDOWN_SECONDS',
  'CRON_TASK_COMMAND_BUDGET',
  'CRON_TASK_TIME_BUDGET_MS',
  'CRON_INTERVAL_SECONDS',
  'ACCESS_TOKEN_MAX_LIFETIME_SECONDS',
  'ACCESS_TOKEN_TTL_SECONDS',
  'SESSION_TTL_SECONDS',
  'SESSION_IDLE_TIMEOUT_SECONDS',
  'REFRESH_RETRY_GRACE_SECONDS',
  'SESSION_RETENTION_DAYS',
  'EXPORT_RETENTION_DAYS',
  'AUTH_TOKEN_AUDIENCE',
  'SSO_HANDOFF_AUDIENCES',
  // Browser origins allowed to call with credentials; staging and prod take https only.
  'CORS_ORIGINS',
  // The admin console (off by default outside dev).
  'CONSOLE_ENABLED',
  // Password reset and the email API that delivers its links (NOTIFY_EMAIL_API_TOKEN goes in as a secret when used).
  'PASSWORD_RESET_LINK_BASE',
  // Where emailed invitation links point (the invite page).
  'INVITE_LINK_BASE',
  'NOTIFY_EMAIL_API_URL',
  'NOTIFY_EMAIL_API_TOKEN',
  'NOTIFY_EMAIL_FROM',
  // An external identity provider, optional beside sign-in's own tokens.
  'AUTH_JWKS_URL',
  'AUTH_ISSUER',
  'AUTH_AUDIENCE',
  // Optional like the settings above, but it holds client secrets: it goes in as a secret (`wrangler secret put`,
  // an SST secret), never in [vars] (wrangler.toml and docs/deploy.md say so).
  'OIDC_PROVIDERS',
  // Optional too, and put in as a secret for the same reason of care: digests, not secrets, but the list says who may
  // suspend any tenant, so changing it is a privilege grant (docs/deploy.md#operators).
  'OPERATOR_TOKEN_HASHES',
  // The DNS-over-HTTPS resolver that verifies custom domains; unset, verification answers 503.
  'DOMAIN_VERIFY_DOH_URL',
  // The breached-password check: fail-open against the public range API unless these say otherwise.
  'PASSWORD_BREACH_CHECK',
  'PASSWORD_BREACH_API_URL',
  'PASSWORD_BREACH_TIMEOUT_MS',
  // The name an authenticator shows beside a passkey; default runstate.
  'PASSKEY_RP_NAME',
  // How access tokens are signed: the stored ES256 keys by default (docs/design/signing-keys.md); HS256 only with both.
  'ACCESS_TOKEN_SIGNING',
  'ACCESS_TOKEN_ALLOW_HS256',
  // Optional, and a secret when used (configured private keys instead of the stored ones), like OIDC_PROVIDERS.
  'AUTH_SIGNING_KEYS',
];
/** The Node server's port, and what only dev/test accept (staging and prod refuse them: checked below). */
const LOCAL_ONLY: Record<string, string | undefined> = {
  PORT: undefined,
  NEON_LOCAL_PROXY_URL: 'http://127.0.0.1:4444',
  AUTH_JWT_SECRET: 'a-dev-only-hs256-secret-of-32-characters',
  INVITE_TTL_SECONDS: '60',
  JOB_CACHE_TTL_SECONDS: '5',
  RATE_LIMIT_SCALE: '10',
};

async function wranglerSecretNames(): Promise<string[]> {
  const toml = await readFile(WRANGLER_TOML, 'utf8');
  const block = /^# Secrets —[^\n]*\n((?:#[^\n]*\n)+)/m.exec(toml)?.[1];
  if (block === undefined) throw new Error('wrangler.toml has no "# Secrets —" block');
  return [...block.matchAll(/^#\s{3}([A-Z][A-Z0-9_]+)\b/gm)].map((m) => m[1]!);
}

async function sstSecretNames(): Promise<Record<string, string>> {
  const config = await readFile(join(REPO_ROOT, 'sst.config.ts'), 'utf8');
  const block = /const SECRET_ENVIRONMENT = \{([^}]*)\}/.exec(config)?.[1];
  if (block === undefined) throw new Error('sst.config.ts has no SECRET_ENVIRONMENT');
  return Object.fromEntries([...block.matchAll(/^\s+([A-Z][A-Z0-9_]+): '([A-Za-z]+)'/gm)].map((m) => [m[1]!, m[2]!]));
}

describe('the secrets of a deployment', () => {
  it('are the same names in wrangler.toml and sst.config.ts, each with its own SST secret', async () => {
    const wrangler = await wranglerSecretNames();
    const sst = await sstSecretNames();
    expect([...wrangler].sort()).toEqual(Object.keys(PROD_SECRETS).sort());
    expect(Object.keys(sst).sort()).toEqual(Object.keys(PROD_SECRETS).sort());
    expect(new Set(Object.values(sst)).size).toBe(Object.keys(sst).length);
  });

  it('are enough for prod, and prod refuses to start without any one of them', () => {
    expect(() => loadConfig({ APP_ENV: 'prod', ...PROD_SECRETS })).not.toThrow();
    for (const name of Object.keys(PROD_SECRETS)) {
      const { [name]: _left, ...rest } = PROD_SECRETS;
      expect(() => loadConfig({ APP_ENV: 'prod', ...rest }), name).toThrow(name);
    }
  });

  it('with the plain settings and the local-only ones, cover every variable lib/config reads', () => {
    const classified = [...Object.keys(PROD_SECRETS), ...PLAIN_SETTINGS, ...Object.keys(LOCAL_ONLY)].sort();
    expect(classified).toEqual(Object.keys(fullEnvSchema().shape).sort());
  });

  it('leave out what prod refuses: the local Neon proxy, HS256, a shortened invite TTL', () => {
    for (const [name, value] of Object.entries(LOCAL_ONLY)) {
      if (value === undefined) continue;
      expect(() => loadConfig({ APP_ENV: 'prod', ...PROD_SECRETS, [name]: value }), name).toThrow(name);
    }
  });
});

describe('wrangler.toml', () => {
  it('runs the scheduled function every 5 minutes at the top level and in staging', () => {
    for (const env of [undefined, 'staging']) {
      expect(unstable_readConfig({ config: WRANGLER_TOML, env }).triggers).toEqual({ crons: ['*/5 * * * *'] });
    }
  });

  it("and so does sst.config.ts, on the same whole minutes, which is the schedule CRON_INTERVAL_SECONDS' default says", async () => {
    const sst = await readFile(join(REPO_ROOT, 'sst.config.ts'), 'utf8');
    expect(sst).toContain("schedule: 'cron(0/5 * * * ? *)'");
    // A queued export's expected start is computed from it (lib/runtime/cron-task/next-run.ts).
    expect(loadConfig({ APP_ENV: 'prod', ...PROD_SECRETS }).cron.intervalSeconds).toBe(5 * 60);
  });

  it('gives staging its own worker and APP_ENV, every var the top level sets, and the same code and alias', () => {
    const prod = unstable_readConfig({ config: WRANGLER_TOML });
    const staging = unstable_readConfig({ config: WRANGLER_TOML, env: 'staging' });
    expect([prod.name, staging.name]).toEqual(['runstate', 'runstate-staging']);
    expect([prod.vars.APP_ENV, staging.vars.APP_ENV]).toEqual(['prod', 'staging']);
    // [vars] are not inherited: a var set at the top level and forgotten in staging would be missing there.
    expect(Object.keys(staging.vars).sort()).toEqual(Object.keys(prod.vars).sort());
    for (const key of [
      'main',
      'compatibility_date',
      'compatibility_flags',
      'alias',
      'minify',
      'keep_names',
      'upload_source_maps',
    ] as const) {
      expect(staging[key], key).toEqual(prod[key]);
    }
  });

  it('builds the staging worker with APP_ENV=staging and without zod locales', async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'runstate-staging-'));
    try {
      const worker = await buildWorker(outDir, { env: 'staging' });
      expect(worker.bindingsReport).toContain('env.APP_ENV ("staging")');
      expect(worker.sources.filter((source) => source.includes('zod/v4/locales/'))).toEqual([
        expect.stringMatching(/zod\/v4\/locales\/en\.js$/),
      ]);
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  }, 120_000);
});
