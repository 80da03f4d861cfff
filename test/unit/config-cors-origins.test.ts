// CORS_ORIGINS: exact origins only, no wildcard (credentials are allowed), https in staging/prod; problems never echo a value.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config/index.ts';
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
  SECRETS_KEYS: `k1:${btoa(String.fromCharCode(...new Uint8Array(32)))}`,
  INDEX_HASH_KEY: 'k'.repeat(32),
  WEBHOOK_SECRET: `whsec_${btoa('sixteen-bytes-xx')}`,
  PASSKEY_RP_ID: 'example.com',
  PASSKEY_ORIGINS: 'https://app.example.com',
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

describe('CORS_ORIGINS', () => {
  it('is empty when unset, and lists exact origins (a port kept, spaces around commas allowed)', () => {
    expect(loadConfig(dev).corsOrigins).toEqual([]);
    expect(loadConfig({ ...dev, CORS_ORIGINS: 'http://localhost:5173, https://app.example.com' }).corsOrigins).toEqual([
      'http://localhost:5173',
      'https://app.example.com',
    ]);
    expect(loadConfig({ ...prod, CORS_ORIGINS: 'https://app.example.com:8443' }).corsOrigins).toEqual(['https://app.example.com:8443']);
  });

  it.each([
    ['a wildcard', '*', /no wildcard/],
    ['a wildcard subdomain', 'https://*.example.com', /no wildcard/],
    ['a path', 'https://app.example.com/console', /scheme:\/\/host/],
    ['a trailing slash', 'https://app.example.com/', /scheme:\/\/host/],
    ['a query', 'https://app.example.com?x=1', /scheme:\/\/host/],
    ['credentials', 'https://user:canary-pw@app.example.com', /scheme:\/\/host/],
    ['upper case', 'https://App.Example.com', /scheme:\/\/host/],
    ['a default port spelled out', 'https://app.example.com:443', /scheme:\/\/host/],
    ['no scheme', 'app.example.com', /scheme:\/\/host/],
    ['another scheme', 'ftp://app.example.com', /scheme:\/\/host/],
    ['null', 'null', /scheme:\/\/host/],
    ['an empty entry', 'https://app.example.com,,https://b.example.com', /scheme:\/\/host/],
    ['a repeat', 'https://app.example.com,https://app.example.com', /listed twice/],
  ])('refuses %s, naming the entry and never its value', (_name, value, rule) => {
    const found = problems({ ...dev, CORS_ORIGINS: value });
    expect(found.join('\n')).toMatch(/^CORS_ORIGINS/);
    expect(found.join('\n')).toMatch(rule);
    expect(found.join('\n')).not.toContain('canary-pw');
  });

  it('takes http origins in dev and test only', () => {
    expect(problems({ ...prod, CORS_ORIGINS: 'http://app.example.com' }).join('\n')).toMatch(/https in staging\/prod/);
    expect(problems({ ...prod, APP_ENV: 'staging', CORS_ORIGINS: 'http://app.example.com' }).join('\n')).toMatch(/https/);
    expect(problems({ ...dev, APP_ENV: 'test', CORS_ORIGINS: 'http://127.0.0.1:5173' })).toEqual([]);
  });

  it('takes at most 20 origins', () => {
    const many = Array.from({ length: 21 }, (_, i) => `https://app${i}.example.com`).join(',');
    expect(problems({ ...dev, CORS_ORIGINS: many })).toEqual(['CORS_ORIGINS: at most 20 origins']);
  });
});
