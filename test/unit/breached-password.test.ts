// The pure parts of the breached-password check: what is sent (the SHA-1's 5-hex prefix), how an answer is read
// (padding ignored, case ignored, anything else refused), and where PASSWORD_BREACH_API_URL may point: dev and test
// reach only a literal loopback address, so no configuration of theirs can ask the public API.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config/index.ts';
import { PUBLIC_RANGE_API_URL } from '../../lib/config/password-breach.ts';
import { findSuffix } from '../../lib/auth/breached-password/range-answer.ts';
import { rangeQuery } from '../../lib/auth/breached-password/range-query.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

describe('rangeQuery', () => {
  it('splits the uppercase SHA-1 hex into the 5-character prefix sent and the 35-character suffix kept', async () => {
    // SHA-1("password"), the range API's own documented example.
    expect(await rangeQuery('password')).toEqual({ prefix: '5BAA6', suffix: '1E4C9B93F3F0682250B6CF8331B7EE68FD8' });
  });

  it('hashes the NFC form, as the KDF derives from it', async () => {
    expect(await rangeQuery('cafe\u0301-password')).toEqual(await rangeQuery('caf\u00e9-password'));
  });
});

describe('findSuffix', () => {
  const suffix = '1E4C9B93F3F0682250B6CF8331B7EE68FD8';
  const other = 'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF';

  it('finds a listed suffix with a count, over CRLF lines', () => {
    expect(findSuffix(`${other}:3\r\n${suffix}:10434004\r\n`, suffix)).toBe('breached');
    expect(findSuffix(`${other}:3\r\n`, suffix)).toBe('not-found');
  });

  it('matches whatever the case of either side', () => {
    expect(findSuffix(`${suffix.toLowerCase()}:2`, suffix)).toBe('breached');
    expect(findSuffix(`${suffix}:2`, suffix.toLowerCase())).toBe('breached');
  });

  it('ignores padding lines (count 0), even one that carries the suffix', () => {
    expect(findSuffix(`${other}:3\r\n${suffix}:0\r\n`, suffix)).toBe('not-found');
  });

  it.each([
    ['an HTML error page', '<html><body>Service Unavailable</body></html>'],
    ['an empty body', ''],
    ['blank lines only', '\r\n\r\n'],
    ['a short suffix', `${suffix.slice(1)}:4`],
    ['no count', suffix],
    ['a negative count', `${suffix}:-1`],
    ['one good line and one bad', `${suffix}:4\r\nnot a line`],
  ])('calls %s malformed, never "not found"', (_name, body) => {
    expect(findSuffix(body, suffix)).toBe('malformed');
  });
});

describe('PASSWORD_BREACH_* configuration', () => {
  const test = {
    APP_ENV: 'test',
    UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:8079',
    UPSTASH_REDIS_REST_TOKEN: 'token',
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
    AUTH_JWT_SECRET: 'x'.repeat(32),
    INDEX_HASH_KEY: 'y'.repeat(32),
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
  const problems = (env: Record<string, string>): string => {
    try {
      loadConfig(env);
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('staging/prod: fail-open against the public range API unless told otherwise', () => {
    expect(loadConfig(prod).passwordBreach).toEqual({ mode: 'fail-open', rangeUrl: PUBLIC_RANGE_API_URL, timeoutMs: 1_500 });
    expect(
      loadConfig({
        ...prod,
        PASSWORD_BREACH_CHECK: 'fail-closed',
        PASSWORD_BREACH_API_URL: 'https://pwned.mirror.example/range',
        PASSWORD_BREACH_TIMEOUT_MS: '800',
      }).passwordBreach,
    ).toEqual({ mode: 'fail-closed', rangeUrl: 'https://pwned.mirror.example/range/', timeoutMs: 800 });
    expect(loadConfig({ ...prod, PASSWORD_BREACH_CHECK: 'off' }).passwordBreach).toEqual({ mode: 'off' });
  });

  it.each([
    ['plain http', 'http://pwned.mirror.example/range/'],
    ['a loopback address', 'https://127.0.0.1:9443/range/'],
    ['localhost', 'https://localhost/range/'],
    ['a .localhost name', 'https://pwned.localhost/range/'],
    ['IPv6 loopback', 'https://[::1]/range/'],
  ])('staging/prod refuse %s, whatever the mode', (_name, url) => {
    for (const mode of ['fail-open', 'fail-closed', 'off']) {
      expect(problems({ ...prod, PASSWORD_BREACH_CHECK: mode, PASSWORD_BREACH_API_URL: url })).toContain(
        'PASSWORD_BREACH_API_URL: must be a public https URL in staging/prod',
      );
    }
  });

  it('dev and test: off with no URL, so nothing is ever asked, and a loopback URL turns it on (fail-open)', () => {
    expect(loadConfig(test).passwordBreach).toEqual({ mode: 'off' });
    expect(loadConfig({ ...test, APP_ENV: 'dev' }).passwordBreach).toEqual({ mode: 'off' });
    expect(loadConfig({ ...test, PASSWORD_BREACH_API_URL: 'http://127.0.0.1:4321/range/' }).passwordBreach).toEqual({
      mode: 'fail-open',
      rangeUrl: 'http://127.0.0.1:4321/range/',
      timeoutMs: 1_500,
    });
    expect(loadConfig({ ...test, PASSWORD_BREACH_API_URL: 'http://[::1]:4321/range/' }).passwordBreach).toMatchObject({
      mode: 'fail-open',
    });
  });

  it.each([
    ['the public range API', PUBLIC_RANGE_API_URL],
    ['another public host', 'https://pwned.mirror.example/range/'],
    ['a name for loopback', 'http://localhost:4321/range/'],
  ])('dev and test refuse %s before anything is asked', (_name, url) => {
    for (const appEnv of ['dev', 'test']) {
      expect(problems({ ...test, APP_ENV: appEnv, PASSWORD_BREACH_API_URL: url })).toContain(
        'PASSWORD_BREACH_API_URL: dev and test ask only a literal loopback address',
      );
    }
  });

  it('dev and test refuse a check turned on with no URL, rather than ask the public API', () => {
    expect(problems({ ...test, PASSWORD_BREACH_CHECK: 'fail-closed' })).toContain(
      'PASSWORD_BREACH_API_URL: required in test when PASSWORD_BREACH_CHECK is fail-closed',
    );
  });

  it('names the variable and the rule, never the value', () => {
    const secretish = 'https://user:hunter2hunter2@127.0.0.1/range/?key=abc#x';
    const message = problems({ ...test, PASSWORD_BREACH_API_URL: secretish });
    expect(message).toContain('PASSWORD_BREACH_API_URL: must not hold credentials, a query or a fragment');
    expect(message).not.toContain('hunter2');
    expect(problems({ ...test, PASSWORD_BREACH_CHECK: 'sometimes' })).toContain('PASSWORD_BREACH_CHECK');
    expect(problems({ ...test, PASSWORD_BREACH_TIMEOUT_MS: '50' })).toContain('PASSWORD_BREACH_TIMEOUT_MS');
  });
});
