// Configuration: one schema for the environment; unsafe production settings are refused with the variable named.
import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { ConfigError, loadConfig } from '../../lib/config/index.ts';
import { ALWAYS_CHECKED, envSchemaFor, fullEnvSchema } from '../../lib/config/schema.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

const dev = {
  UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:8079',
  UPSTASH_REDIS_REST_TOKEN: 'token',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/app',
  AUTH_JWT_SECRET: 'x'.repeat(32),
  INDEX_HASH_KEY: 'k'.repeat(32),
  PASSKEY_RP_ID: 'localhost',
  PASSKEY_ORIGINS: 'http://localhost:8787',
};

const prod = {
  APP_ENV: 'prod',
  UPSTASH_REDIS_REST_URL: 'https://main.upstash.example',
  UPSTASH_REDIS_REST_TOKEN: 'token',
  REVOCATION_REDIS_REST_URL: 'https://revocation.upstash.example',
  REVOCATION_REDIS_REST_TOKEN: 'token2',
  DATABASE_URL: 'postgres://app:pw@ep-x.neon.example/app',
  AUTH_SIGNING_KEYS: testSigningKeys(),
  AUTH_TOKEN_ISSUER: 'https://auth.example/',
  AUTH_JWKS_URL: 'https://id.example/.well-known/jwks.json',
  AUTH_ISSUER: 'https://id.example/',
  AUTH_AUDIENCE: 'runstate',
  SECRETS_KEYS: `k1:${btoa(String.fromCharCode(...new Uint8Array(32)))}`,
  INDEX_HASH_KEY: 'k'.repeat(32),
  WEBHOOK_SECRET: `whsec_${btoa('sixteen-bytes-xx')}`,
  PASSKEY_RP_ID: 'example.com',
  PASSKEY_ORIGINS: 'https://app.example.com,https://example.com',
};

function problems(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

describe('loadConfig', () => {
  it('applies the defaults of docs/api.md in dev and shares the main store for revocation', () => {
    const config = loadConfig(dev);
    expect(config).toMatchObject({ appEnv: 'dev', port: 8787, keyPrefix: 'mhpay', inviteTtlSeconds: 10_800 });
    expect(config.revocationRedis).toEqual(config.redis);
    expect(config.auth.hs256?.secret).toBe(dev.AUTH_JWT_SECRET);
  });

  it('accepts a complete production environment', () => {
    const config = loadConfig(prod);
    expect(config.auth.external).toEqual({ jwksUrl: prod.AUTH_JWKS_URL, issuer: prod.AUTH_ISSUER, audience: prod.AUTH_AUDIENCE });
    expect(config.revocationRedis.url).toBe(prod.REVOCATION_REDIS_REST_URL);
    expect(config.secretsKeys[0]?.kid).toBe('k1');
  });

  it.each([
    ['a localhost Redis', { UPSTASH_REDIS_REST_URL: 'https://localhost:8079' }, 'UPSTASH_REDIS_REST_URL'],
    ['plain-http Redis', { UPSTASH_REDIS_REST_URL: 'http://main.upstash.example' }, 'UPSTASH_REDIS_REST_URL'],
    [
      'no separate revocation store',
      { REVOCATION_REDIS_REST_URL: undefined, REVOCATION_REDIS_REST_TOKEN: undefined },
      'REVOCATION_REDIS_REST_URL',
    ],
    ['a localhost revocation store', { REVOCATION_REDIS_REST_URL: 'https://127.0.0.1:9' }, 'REVOCATION_REDIS_REST_URL'],
    ['an HS256 secret', { AUTH_JWT_SECRET: 'y'.repeat(40) }, 'AUTH_JWT_SECRET'],
    ['no secrets keys', { SECRETS_KEYS: undefined }, 'SECRETS_KEYS'],
    ['a localhost database', { DATABASE_URL: 'postgres://u@127.0.0.1/app' }, 'DATABASE_URL'],
    ['the local Neon proxy', { NEON_LOCAL_PROXY_URL: 'http://127.0.0.1:5999' }, 'NEON_LOCAL_PROXY_URL'],
    ['a short invite TTL', { INVITE_TTL_SECONDS: '5' }, 'INVITE_TTL_SECONDS'],
    ['no webhook secret', { WEBHOOK_SECRET: undefined }, 'WEBHOOK_SECRET'],
  ])('prod refuses %s, naming the variable', (_name, change, variable) => {
    const found = problems({ ...prod, ...change });
    expect(found.some((p) => p.startsWith(variable))).toBe(true);
  });

  it('refuses a missing index hash key, a bad secrets key and an unknown APP_ENV, and never echoes secret values', () => {
    const secret = 'short-secret-value';
    const found = problems({ ...dev, INDEX_HASH_KEY: secret, SECRETS_KEYS: 'k1:bm90LTMyLWJ5dGVz', APP_ENV: 'production' });
    expect(found.join('\n')).toMatch(/INDEX_HASH_KEY/);
    expect(found.join('\n')).toMatch(/APP_ENV/);
    expect(found.join('\n')).not.toContain(secret);
    expect(problems({ ...dev, SECRETS_KEYS: 'k1:bm90LTMyLWJ5dGVz' }).join('\n')).toMatch(/SECRETS_KEYS: .*32 bytes/);
  });

  it('refuses a webhook secret too short to sign with, without echoing it', () => {
    const found = problems({ ...dev, WEBHOOK_SECRET: 'whsec_abc' }).join('\n');
    expect(found).toMatch(/WEBHOOK_SECRET: whsec_ followed by the base64 of at least 16 random bytes/);
    expect(found).not.toContain('whsec_abc');
  });

  it('reads the Syrve session bounds, a non-positive cache meaning none', () => {
    expect(loadConfig(dev).syrve).toEqual({ sessionCacheSeconds: 600, reconnectCooldownSeconds: 900 });
    expect(loadConfig({ ...dev, SYRVE_SESSION_CACHE_SECONDS: '0' }).syrve.sessionCacheSeconds).toBe(0);
    expect(problems({ ...dev, SYRVE_RECONNECT_COOLDOWN_SECONDS: '0' }).join()).toMatch(/SYRVE_RECONNECT_COOLDOWN_SECONDS/);
  });

  it('allows the short invite TTL in test only', () => {
    expect(loadConfig({ ...dev, APP_ENV: 'test', INVITE_TTL_SECONDS: '2' }).inviteTtlSeconds).toBe(2);
    expect(problems({ ...dev, INVITE_TTL_SECONDS: '2' }).join()).toMatch(/INVITE_TTL_SECONDS/);
  });

  it('allows the short job-cache TTL in test only, at most the 120 s default', () => {
    expect(loadConfig(dev).jobCacheTtlSeconds).toBe(120);
    expect(loadConfig({ ...dev, APP_ENV: 'test', JOB_CACHE_TTL_SECONDS: '1' }).jobCacheTtlSeconds).toBe(1);
    expect(problems({ ...dev, JOB_CACHE_TTL_SECONDS: '1' }).join()).toMatch(/JOB_CACHE_TTL_SECONDS/);
    expect(problems({ ...dev, APP_ENV: 'test', JOB_CACHE_TTL_SECONDS: '121' }).join()).toMatch(/JOB_CACHE_TTL_SECONDS/);
  });

  it('takes the longest access-token lifetime from ACCESS_TOKEN_MAX_LIFETIME_SECONDS, 900 s when unset, 60–86 400', () => {
    expect(loadConfig(dev).accessTokenMaxLifetimeSeconds).toBe(900);
    expect(loadConfig({ ...prod, ACCESS_TOKEN_MAX_LIFETIME_SECONDS: '3600' }).accessTokenMaxLifetimeSeconds).toBe(3600);
    for (const value of ['59', '86401', '1.5', 'soon']) {
      expect(problems({ ...dev, ACCESS_TOKEN_MAX_LIFETIME_SECONDS: value }).join()).toMatch(/ACCESS_TOKEN_MAX_LIFETIME_SECONDS/);
    }
  });

  it('signs sign-in tokens with AUTH_SIGNING_KEYS in prod, and refuses a key or issuer that is not usable, naming only the variable', () => {
    const config = loadConfig(prod);
    expect(config.auth.signing?.keys[0]?.alg).toBe('EdDSA');
    expect(config.auth.signing?.issuer).toBe('https://auth.example/');
    expect(config.auth.signing?.keys[0]?.publicJwk).not.toHaveProperty('d');
    expect(config.auth.hs256).toBeUndefined();
    const { d } = JSON.parse(prod.AUTH_SIGNING_KEYS)[0] as { d: string };
    for (const [change, variable] of [
      [{ AUTH_SIGNING_KEYS: '[{"kty":"oct","k":"abc","kid":"x"}]' }, 'AUTH_SIGNING_KEYS'],
      [{ AUTH_SIGNING_KEYS: `[{"kty":"OKP","crv":"Ed25519","kid":"x","x":"${d}"}]` }, 'AUTH_SIGNING_KEYS'],
      [{ AUTH_SIGNING_KEYS: 'not json' }, 'AUTH_SIGNING_KEYS'],
      [{ AUTH_TOKEN_ISSUER: undefined }, 'AUTH_TOKEN_ISSUER'],
      [{ AUTH_TOKEN_ISSUER: prod.AUTH_ISSUER }, 'AUTH_TOKEN_ISSUER'],
    ] as const) {
      const found = problems({ ...prod, ...change });
      expect(
        found.some((p) => p.startsWith(variable)),
        variable,
      ).toBe(true);
      expect(found.join('\n')).not.toContain(d);
    }
  });

  it('signs with the stored keys in prod without AUTH_SIGNING_KEYS: ES256 by default, EdDSA when chosen, never beside configured keys', () => {
    const { AUTH_SIGNING_KEYS: _configured, ...stored } = prod;
    expect(loadConfig(stored).auth).toMatchObject({ stored: { alg: 'ES256', issuer: 'https://auth.example/', audience: 'runstate' } });
    expect(loadConfig(stored).auth.signing).toBeUndefined();
    expect(loadConfig({ ...stored, ACCESS_TOKEN_SIGNING: 'EdDSA' }).auth.stored?.alg).toBe('EdDSA');
    expect(problems({ ...stored, AUTH_TOKEN_ISSUER: undefined })).toEqual([expect.stringMatching(/^AUTH_TOKEN_ISSUER: required/)]);
    expect(problems({ ...prod, ACCESS_TOKEN_SIGNING: 'ES256' })).toEqual([
      expect.stringMatching(/^ACCESS_TOKEN_SIGNING: not with AUTH_SIGNING_KEYS/),
    ]);
    // dev keeps HS256 unless told otherwise, and makes up an issuer for the stored keys.
    expect(loadConfig(dev).auth.stored).toBeUndefined();
    const devStored = loadConfig({ ...dev, ACCESS_TOKEN_SIGNING: 'ES256', SECRETS_KEYS: prod.SECRETS_KEYS }).auth;
    expect(devStored).toMatchObject({ stored: { alg: 'ES256', issuer: 'runstate-dev' } });
    expect(devStored.hs256).toBeUndefined();
    expect(problems({ ...dev, ACCESS_TOKEN_SIGNING: 'EdDSA' })).toEqual([
      expect.stringMatching(/^SECRETS_KEYS: required with ACCESS_TOKEN_SIGNING/),
    ]);
  });

  it('refuses HS256 as the signing algorithm in staging and prod unless ACCESS_TOKEN_ALLOW_HS256=true says so too', () => {
    const { AUTH_SIGNING_KEYS: _configured, AUTH_JWKS_URL: _u, AUTH_ISSUER: _i, AUTH_AUDIENCE: _a, AUTH_TOKEN_ISSUER: _t, ...bare } = prod;
    const hs256 = { ...bare, AUTH_JWT_SECRET: 'y'.repeat(40) };
    for (const appEnv of ['prod', 'staging']) {
      expect(problems({ ...hs256, APP_ENV: appEnv, ACCESS_TOKEN_SIGNING: 'HS256' })).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^ACCESS_TOKEN_SIGNING: HS256 is refused/),
          expect.stringMatching(/^AUTH_JWT_SECRET: /),
        ]),
      );
      expect(
        problems({ ...hs256, APP_ENV: appEnv, ACCESS_TOKEN_SIGNING: 'HS256', ACCESS_TOKEN_ALLOW_HS256: 'false' }).length,
      ).toBeGreaterThan(0);
      expect(problems({ ...hs256, APP_ENV: appEnv, ACCESS_TOKEN_ALLOW_HS256: 'true' }).length).toBeGreaterThan(0);
      const allowed = loadConfig({ ...hs256, APP_ENV: appEnv, ACCESS_TOKEN_SIGNING: 'HS256', ACCESS_TOKEN_ALLOW_HS256: 'true' });
      expect(allowed.auth.hs256?.secret).toBe(hs256.AUTH_JWT_SECRET);
      expect(allowed.auth.stored).toBeUndefined();
    }
    expect(
      problems({ ...dev, ACCESS_TOKEN_SIGNING: 'HS256', AUTH_JWKS_URL: prod.AUTH_JWKS_URL, AUTH_ISSUER: 'i', AUTH_AUDIENCE: 'a' }),
    ).toEqual([expect.stringMatching(/^ACCESS_TOKEN_SIGNING: HS256 is not with AUTH_JWKS_URL/)]);
    expect(problems({ ...prod, ACCESS_TOKEN_SIGNING: 'HS256', ACCESS_TOKEN_ALLOW_HS256: 'true' })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^ACCESS_TOKEN_SIGNING: not with AUTH_SIGNING_KEYS/)]),
    );
    expect(problems({ ...dev, ACCESS_TOKEN_SIGNING: 'HS256', AUTH_JWT_SECRET: undefined })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^AUTH_JWT_SECRET: required with ACCESS_TOKEN_SIGNING=HS256/)]),
    );
  });

  it('gives access tokens 15 minutes and sessions 12 hours by default, and no access token longer than the longest lifetime', () => {
    expect(loadConfig(dev).signIn).toEqual({
      accessTokenTtlSeconds: 900,
      sessionTtlSeconds: 43_200,
      sessionIdleTimeoutSeconds: 7_200,
      refreshRetryGraceSeconds: 30,
    });
    expect(loadConfig({ ...dev, ACCESS_TOKEN_MAX_LIFETIME_SECONDS: '300' }).signIn.accessTokenTtlSeconds).toBe(300);
    expect(problems({ ...dev, ACCESS_TOKEN_TTL_SECONDS: '1200' }).join()).toMatch(/ACCESS_TOKEN_TTL_SECONDS/);
    expect(problems({ ...dev, SESSION_TTL_SECONDS: '10' }).join()).toMatch(/SESSION_TTL_SECONDS/);
  });

  it('ends idle sessions after 2 hours and lets a refresh be retried for 30 s by default; keeps ended sessions 30 days, exports 7', () => {
    expect(loadConfig(dev).retention).toEqual({ sessionDays: 30, exportDays: 7 });
    const tuned = loadConfig({
      ...dev,
      SESSION_IDLE_TIMEOUT_SECONDS: '900',
      REFRESH_RETRY_GRACE_SECONDS: '0',
      SESSION_RETENTION_DAYS: '1',
    });
    expect(tuned.signIn).toMatchObject({ sessionIdleTimeoutSeconds: 900, refreshRetryGraceSeconds: 0 });
    expect(tuned.retention.sessionDays).toBe(1);
    // Shorter than an access token: a client refreshing when its token runs out would always find its session idle.
    expect(problems({ ...dev, SESSION_IDLE_TIMEOUT_SECONDS: '600' }).join()).toMatch(/SESSION_IDLE_TIMEOUT_SECONDS: must be at least/);
    expect(problems({ ...dev, REFRESH_RETRY_GRACE_SECONDS: '301' }).join()).toMatch(/REFRESH_RETRY_GRACE_SECONDS/);
    expect(problems({ ...dev, SESSION_RETENTION_DAYS: '0' }).join()).toMatch(/SESSION_RETENTION_DAYS/);
    expect(problems({ ...dev, EXPORT_RETENTION_DAYS: '0' }).join()).toMatch(/EXPORT_RETENTION_DAYS/);
  });

  it('refuses password reset in staging/prod without an email API to deliver it, or with a link that is not public https', () => {
    const reset = { PASSWORD_RESET_LINK_BASE: 'https://app.example/auth/password-reset' };
    const email = {
      NOTIFY_EMAIL_API_URL: 'https://mail.example/send',
      NOTIFY_EMAIL_API_TOKEN: 'canary-mail-token',
      NOTIFY_EMAIL_FROM: 'no-reply@example.test',
    };
    expect(problems({ ...prod, ...reset }).join()).toMatch(/NOTIFY_EMAIL_API_URL: required/);
    expect(loadConfig({ ...prod, ...reset, ...email }).passwordReset?.linkBase).toBe(reset.PASSWORD_RESET_LINK_BASE);
    expect(problems({ ...prod, PASSWORD_RESET_LINK_BASE: 'http://127.0.0.1:8787/auth/password-reset', ...email }).join()).toMatch(
      /PASSWORD_RESET_LINK_BASE: must be a public https URL/,
    );
    expect(problems({ ...prod, ...reset, ...email, NOTIFY_EMAIL_API_URL: 'https://localhost/send' }).join()).toMatch(
      /NOTIFY_EMAIL_API_URL/,
    );
    const partial = problems({ ...dev, NOTIFY_EMAIL_API_URL: 'https://mail.example/send' });
    expect(partial.join()).toMatch(/must be set together/);
    expect(JSON.stringify(problems({ ...prod, ...reset, NOTIFY_EMAIL_API_TOKEN: 'canary-mail-token' }))).not.toContain('canary-mail-token');
    // Dev may leave the email API out: the local stack's mailbox folder stands in for it.
    expect(loadConfig({ ...dev, ...reset }).emailApi).toBeUndefined();
  });

  it("refuses a handoff to the deployment's own audience, and a reset link base with a fragment", () => {
    expect(problems({ ...prod, SSO_HANDOFF_AUDIENCES: 'console,runstate' }).join()).toMatch(/SSO_HANDOFF_AUDIENCES/);
    expect(problems({ ...prod, AUTH_TOKEN_AUDIENCE: 'api', SSO_HANDOFF_AUDIENCES: 'api' }).join()).toMatch(/SSO_HANDOFF_AUDIENCES/);
    expect(loadConfig({ ...prod, SSO_HANDOFF_AUDIENCES: 'console' }).ssoHandoffAudiences).toEqual(['console']);
    expect(problems({ ...dev, PASSWORD_RESET_LINK_BASE: 'https://app.example/reset#x' }).join()).toMatch(/PASSWORD_RESET_LINK_BASE/);
  });

  it('reads INVITE_LINK_BASE: no fragment anywhere, public https in staging/prod', () => {
    expect(loadConfig({ ...dev, INVITE_LINK_BASE: 'http://127.0.0.1:8787/invites/accept' }).inviteLinkBase).toBe(
      'http://127.0.0.1:8787/invites/accept',
    );
    expect(loadConfig(dev).inviteLinkBase).toBeUndefined();
    expect(problems({ ...dev, INVITE_LINK_BASE: 'https://app.example/invites#x' }).join()).toMatch(
      /INVITE_LINK_BASE: must not hold a fragment/,
    );
    expect(problems({ ...prod, INVITE_LINK_BASE: 'http://app.example/invites/accept' }).join()).toMatch(
      /INVITE_LINK_BASE: must be a public https URL/,
    );
    expect(problems({ ...prod, INVITE_LINK_BASE: 'https://127.0.0.1/invites/accept' }).join()).toMatch(/INVITE_LINK_BASE/);
    const emailApi = {
      NOTIFY_EMAIL_API_URL: 'https://mail.example/send',
      NOTIFY_EMAIL_API_TOKEN: 't',
      NOTIFY_EMAIL_FROM: 'no-reply@example.test',
    };
    expect(loadConfig({ ...prod, ...emailApi, INVITE_LINK_BASE: 'https://app.example/invites/accept' }).inviteLinkBase).toBe(
      'https://app.example/invites/accept',
    );
  });

  it('refuses INVITE_LINK_BASE in staging/prod without the email API to send through; dev may use the mailbox folder', () => {
    const linkBase = { INVITE_LINK_BASE: 'https://app.example/invites/accept' };
    for (const env of [prod, { ...prod, APP_ENV: 'staging' }]) {
      expect(problems({ ...env, ...linkBase }).join()).toMatch(
        /NOTIFY_EMAIL_API_URL: required in staging\/prod when INVITE_LINK_BASE is set/,
      );
    }
    expect(problems(prod).join()).not.toMatch(/INVITE_LINK_BASE/);
    expect(loadConfig({ ...dev, ...linkBase }).inviteLinkBase).toBe(linkBase.INVITE_LINK_BASE);
  });
});

describe('the passkeys relying party', () => {
  const { PASSKEY_RP_ID: _rpId, PASSKEY_ORIGINS: _origins, ...devWithout } = dev;
  const { PASSKEY_RP_ID: _prodRpId, PASSKEY_ORIGINS: _prodOrigins, ...prodWithout } = prod;

  it('defaults to localhost on the port in dev, and is refused at start when missing anywhere else', () => {
    expect(loadConfig({ ...devWithout, PORT: '9100' }).passkeys).toEqual({
      rpId: 'localhost',
      rpName: 'runstate',
      origins: ['http://localhost:9100'],
    });
    for (const env of [{ ...devWithout, APP_ENV: 'test' }, prodWithout, { ...prodWithout, APP_ENV: 'staging' }]) {
      const found = problems(env).join('\n');
      expect(found).toMatch(/PASSKEY_RP_ID: required outside dev/);
      expect(found).toMatch(/PASSKEY_ORIGINS: required outside dev/);
    }
  });

  it('takes the RP ID, its name and exact origins under it, https in staging/prod, naming only the variable', () => {
    expect(loadConfig({ ...prod, PASSKEY_RP_NAME: 'Acme' }).passkeys).toEqual({
      rpId: 'example.com',
      rpName: 'Acme',
      origins: ['https://app.example.com', 'https://example.com'],
    });
    const bad = (vars: Record<string, string>) => problems({ ...prod, ...vars }).join('\n');
    expect(bad({ PASSKEY_RP_ID: 'https://example.com' })).toMatch(/PASSKEY_RP_ID: a lower-case domain name/);
    expect(bad({ PASSKEY_RP_ID: '10.0.0.1' })).toMatch(/PASSKEY_RP_ID: a lower-case domain name/);
    expect(bad({ PASSKEY_ORIGINS: 'https://app.example.com/login' })).toMatch(/PASSKEY_ORIGINS\[0\]: an origin is/);
    expect(bad({ PASSKEY_ORIGINS: 'https://app.example.com, https://evil.test' })).toMatch(
      /PASSKEY_ORIGINS\[1\]: its host must be PASSKEY_RP_ID or a subdomain of it/,
    );
    expect(bad({ PASSKEY_ORIGINS: 'http://app.example.com' })).toMatch(/PASSKEY_ORIGINS\[0\]: must be https in staging\/prod/);
    expect(bad({ PASSKEY_ORIGINS: 'https://secret-canary.evil.test' })).not.toContain('secret-canary');
  });
});

describe('the environment schema built per environment', () => {
  const shape = fullEnvSchema().shape;

  it('always checks exactly the variables with a default or a required value', () => {
    const checkedWhenUnset = Object.entries(shape)
      .filter(([, schema]) => {
        const unset = (schema as z.ZodType).safeParse(undefined);
        return !unset.success || unset.data !== undefined;
      })
      .map(([name]) => name);
    expect(checkedWhenUnset).toEqual([...ALWAYS_CHECKED]);
  });

  it('parses an environment as the whole schema does, values and problems alike', () => {
    const environments = [
      dev,
      prod,
      { ...dev, PORT: '0', RATE_LIMIT_SCALE: 'x', NOTIFY_EMAIL_FROM: 'nope', UNRELATED: 'kept out' },
      { APP_ENV: 'qa', WEBHOOK_SECRET: 'whsec_short' },
    ];
    for (const env of environments) {
      const whole = fullEnvSchema().safeParse(env);
      const own = envSchemaFor(env).safeParse(env);
      expect(own.success).toBe(whole.success);
      expect(own.data).toEqual(whole.data);
      expect(own.error?.issues).toEqual(whole.error?.issues);
    }
  });
});
