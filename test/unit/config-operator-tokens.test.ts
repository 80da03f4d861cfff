// OPERATOR_TOKEN_HASHES: who may act on every tenant. Well-formed entries only, one secret per operator, no pasted
// secret, and staging/prod refuse the digests of published secrets; problems never echo a value.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config/index.ts';
import { identifyOperator } from '../../lib/auth/operator.ts';
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

const secret = () => `rsop_${randomBytes(32).toString('base64url')}`;
const digest = (value: string) => createHash('sha256').update(value).digest('hex');

function problems(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

describe('OPERATOR_TOKEN_HASHES', () => {
  it('is empty when unset (operator access off) and lists id and digest per entry', () => {
    expect(loadConfig(dev).operators).toEqual([]);
    const [a, b] = [secret(), secret()];
    const config = loadConfig({ ...prod, OPERATOR_TOKEN_HASHES: `alice:${digest(a)}, ops.bob:${digest(b)}` });
    expect(config.operators).toEqual([
      { id: 'alice', digest: digest(a) },
      { id: 'ops.bob', digest: digest(b) },
    ]);
  });

  it('refuses a pasted secret, a malformed entry, a repeated id or digest, naming the entry and never the value', () => {
    const pasted = secret();
    const one = digest(secret());
    const cases: Array<[string, RegExp]> = [
      [`alice:${pasted}`, /looks like an operator secret/],
      [pasted, /looks like an operator secret/],
      [`alice:${one.toUpperCase()}`, /64 lowercase hex/],
      [`alice:${one.slice(1)}`, /64 lowercase hex/],
      [`Alice:${one}`, /<operatorId>:<sha256 hex>/],
      [one, /<operatorId>:<sha256 hex>/],
      [`alice:${one},alice:${digest(secret())}`, /listed twice/],
      [`alice:${one},bob:${one}`, /same digest/],
      [Array.from({ length: 21 }, (_, i) => `op${i}:${digest(secret())}`).join(','), /at most 20/],
    ];
    for (const [value, rule] of cases) {
      const found = problems({ ...dev, OPERATOR_TOKEN_HASHES: value });
      expect(found.join('\n'), value).toMatch(rule);
      expect(found.join('\n')).toMatch(/^OPERATOR_TOKEN_HASHES/);
      expect(found.join('\n')).not.toContain(pasted.slice(5));
      expect(found.join('\n')).not.toContain(one);
    }
  });

  it('staging and prod refuse the digest of a published secret (the empty string, the documented example); dev does not', () => {
    for (const published of ['', `rsop_${'A'.repeat(43)}`]) {
      const value = `alice:${digest(published)}`;
      expect(problems({ ...prod, OPERATOR_TOKEN_HASHES: value }).join('\n')).toMatch(/published secret/);
      expect(problems({ ...prod, APP_ENV: 'staging', OPERATOR_TOKEN_HASHES: value }).join('\n')).toMatch(/published secret/);
      expect(problems({ ...dev, OPERATOR_TOKEN_HASHES: value })).toEqual([]);
    }
  });
});

describe('identifyOperator', () => {
  const [a, b] = [secret(), secret()];
  const operators = [
    { id: 'alice', digest: digest(a) },
    { id: 'bob', digest: digest(b) },
  ];

  it('names the operator whose secret it is', async () => {
    expect(await identifyOperator(operators, `Bearer ${a}`)).toEqual({ ok: true, operator: { id: 'alice' } });
    expect(await identifyOperator(operators, `Bearer ${b}`)).toEqual({ ok: true, operator: { id: 'bob' } });
  });

  it('refuses a missing header, another scheme, a value not of the secret shape (a JWT) and an unknown secret', async () => {
    expect(await identifyOperator(operators, undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(await identifyOperator(operators, `Basic ${a}`)).toEqual({ ok: false, reason: 'missing' });
    expect(await identifyOperator(operators, `Bearer ${a} extra`)).toEqual({ ok: false, reason: 'missing' });
    expect(await identifyOperator(operators, 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig')).toEqual({ ok: false, reason: 'malformed' });
    expect(await identifyOperator(operators, `Bearer ${secret()}`)).toEqual({ ok: false, reason: 'unknown' });
    expect(await identifyOperator([], `Bearer ${a}`)).toEqual({ ok: false, reason: 'unknown' });
  });
});
