// OIDC_PROVIDERS: a JSON array of providers, checked entry by entry; every problem names the entry, field and rule,
// never a value (it holds client secrets); staging and prod accept only https issuers and redirect URIs off loopback.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config/index.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

const SECRET = 'canary-client-secret-0123456789';

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
  SECRETS_KEYS: `k1:${btoa(String.fromCharCode(...new Uint8Array(32)))}`,
  INDEX_HASH_KEY: 'k'.repeat(32),
  WEBHOOK_SECRET: `whsec_${btoa('sixteen-bytes-xx')}`,
  PASSKEY_RP_ID: 'example.com',
  PASSKEY_ORIGINS: 'https://app.example.com',
};

const entry = (overrides: Record<string, unknown> = {}) => ({
  id: 'corp',
  issuer: 'https://id.example.test',
  clientId: 'runstate',
  clientSecret: SECRET,
  redirectUri: 'https://api.example.test/auth/oidc/corp/callback',
  ...overrides,
});

function problems(env: Record<string, string>, providers: unknown): string[] {
  const value = typeof providers === 'string' ? providers : JSON.stringify(providers);
  try {
    loadConfig({ ...env, OIDC_PROVIDERS: value });
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const found = (error as ConfigError).problems;
    // Whatever went wrong, no problem quotes the secret (nor anything else the variable holds).
    for (const problem of found) expect(problem).not.toContain(SECRET);
    return found;
  }
}

describe('OIDC_PROVIDERS', () => {
  it('is optional: unset means no providers', () => {
    expect(loadConfig(dev).oidcProviders).toEqual([]);
  });

  it('parses https providers in prod and loopback http ones in dev', () => {
    expect(loadConfig({ ...prod, OIDC_PROVIDERS: JSON.stringify([entry()]) }).oidcProviders).toEqual([entry()]);
    const local = entry({ id: 'local', issuer: 'http://127.0.0.1:4000', redirectUri: 'http://127.0.0.1:8787/auth/oidc/local/callback' });
    expect(loadConfig({ ...dev, OIDC_PROVIDERS: JSON.stringify([local]) }).oidcProviders).toEqual([local]);
  });

  it.each([
    ['not JSON', `[{"clientSecret":"${SECRET}"`, 'OIDC_PROVIDERS: not valid JSON'],
    ['not an array', entry(), 'OIDC_PROVIDERS: a JSON array of providers'],
    ['a bad id', [entry({ id: 'Corp!' })], 'OIDC_PROVIDERS[0].id: lowercase letters'],
    ['a missing client id', [entry({ clientId: undefined })], 'OIDC_PROVIDERS[0].clientId: a string'],
    ['a short secret', [entry({ clientSecret: 'short' })], 'OIDC_PROVIDERS[0].clientSecret: at least 16 characters'],
    ['an unknown field', [entry({ scope: 'openid' })], 'OIDC_PROVIDERS[0]: an object of id, issuer'],
    [
      'an issuer with a query',
      [entry({ issuer: `https://id.example.test/?secret=${SECRET}` })],
      'OIDC_PROVIDERS[0].issuer: an http(s) URL',
    ],
    ['a duplicate id', [entry(), entry()], 'OIDC_PROVIDERS[1].id: provider ids must be unique'],
    [
      'a redirect URI of another route',
      [entry({ redirectUri: 'https://api.example.test/callback' })],
      'OIDC_PROVIDERS[0].redirectUri: its path',
    ],
  ])('refuses %s, naming the entry and the rule', (_label, providers, expected) => {
    expect(problems(prod, providers).join('\n')).toContain(expected);
  });

  it('refuses http or loopback issuers and redirect URIs in staging/prod, and http off loopback everywhere', () => {
    expect(problems(prod, [entry({ issuer: 'http://id.example.test' })])).toContain(
      'OIDC_PROVIDERS[0].issuer: must be https in staging/prod',
    );
    expect(problems({ ...prod, APP_ENV: 'staging' }, [entry({ issuer: 'https://127.0.0.1:4000' })])).toContain(
      'OIDC_PROVIDERS[0].issuer: a loopback host is not allowed in staging/prod',
    );
    expect(problems(prod, [entry({ redirectUri: 'http://localhost:8787/auth/oidc/corp/callback' })])).toEqual(
      expect.arrayContaining(['OIDC_PROVIDERS[0].redirectUri: a loopback host is not allowed in staging/prod']),
    );
    expect(problems(dev, [entry({ issuer: 'http://id.example.test' })])).toContain(
      'OIDC_PROVIDERS[0].issuer: http is allowed only on loopback',
    );
  });
});
