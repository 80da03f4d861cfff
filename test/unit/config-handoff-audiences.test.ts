// SSO_HANDOFF_AUDIENCES: plain app ids as before, or `<app>:<sha256 hex>` for an app that must present a client secret;
// no pasted secret, no duplicates, staging/prod refuse published digests; problems never echo a value. And the exchange's
// check of the secret (Authorization: Basic), in constant time, before anything is spent.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config/index.ts';
import { authenticateHandoffClient } from '../../lib/auth/handoff/client-auth.ts';

const dev = {
  UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:8079',
  UPSTASH_REDIS_REST_TOKEN: 'token',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/app',
  AUTH_JWT_SECRET: 'x'.repeat(32),
  INDEX_HASH_KEY: 'k'.repeat(32),
  PASSKEY_RP_ID: 'localhost',
  PASSKEY_ORIGINS: 'http://localhost:8787',
};

const secret = () => `rshc_${randomBytes(32).toString('base64url')}`;
const digest = (value: string) => createHash('sha256').update(value).digest('hex');
const basic = (app: string, value: string) => `Basic ${Buffer.from(`${app}:${value}`).toString('base64')}`;

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('SSO_HANDOFF_AUDIENCES', () => {
  it('reads plain ids as before, and an id with a digest as an app that must present its secret', () => {
    const billing = secret();
    const config = loadConfig({ ...dev, SSO_HANDOFF_AUDIENCES: `console, reports,billing:${digest(billing)}` });
    expect(config.ssoHandoffAudiences).toEqual(['console', 'reports', 'billing']);
    expect([...config.ssoHandoffClientSecretDigests]).toEqual([['billing', digest(billing)]]);
    expect(loadConfig(dev).ssoHandoffClientSecretDigests.size).toBe(0);
  });

  it('refuses a pasted secret without echoing it, a bad id or digest, an app or a digest listed twice, more than 20', () => {
    const pasted = secret();
    const found = problems({ ...dev, SSO_HANDOFF_AUDIENCES: `console,billing:${pasted}` });
    expect(found).toEqual(['SSO_HANDOFF_AUDIENCES[1]: looks like a client secret; configure its SHA-256 (hex), never the secret']);
    expect(found.join()).not.toContain(pasted.slice(5));
    const shared = digest(secret());
    const cases: Array<[string, RegExp]> = [
      ['Console', /\[0\]: <app>\[:<sha256 hex>\]/],
      ['console:ABC', /\[0\]: the digest must be 64 lowercase hex/],
      [`console:${'A'.repeat(64)}`, /\[0\]: the digest must be 64 lowercase hex/],
      ['console,console', /\[1\]: the app console is listed twice/],
      [`console:${shared},reports:${shared}`, /\[1\]: the same digest is listed twice/],
      [Array.from({ length: 21 }, (_, i) => `app${i}`).join(','), /at most 20 apps/],
      ['', /^$/],
    ];
    for (const [value, expected] of cases) {
      const found = problems({ ...dev, SSO_HANDOFF_AUDIENCES: value }).join('\n');
      expect(found, value).toMatch(expected);
      if (value.includes(':')) expect(found).not.toContain(value.slice(value.indexOf(':') + 1, value.indexOf(':') + 20));
    }
  });

  it('staging and prod refuse the digest of a published secret (the empty one, the docs example); dev takes it', () => {
    for (const published of ['', `rshc_${'A'.repeat(43)}`]) {
      const entry = `billing:${digest(published)}`;
      expect(problems({ ...dev, APP_ENV: 'staging', SSO_HANDOFF_AUDIENCES: entry }).join()).toMatch(/published secret/);
      expect(problems({ ...dev, SSO_HANDOFF_AUDIENCES: entry })).toEqual([]);
    }
  });
});

describe('the client secret at the exchange', () => {
  const billing = secret();
  const digests = new Map([['billing', digest(billing)]]);

  it('an app without a secret needs no header and ignores one; an app id that is an Object property has none', async () => {
    expect(await authenticateHandoffClient(digests, 'console', undefined)).toEqual({ ok: true, authenticated: false });
    expect(await authenticateHandoffClient(digests, 'console', 'Basic garbage')).toEqual({ ok: true, authenticated: false });
    expect(await authenticateHandoffClient(digests, 'constructor', undefined)).toEqual({ ok: true, authenticated: false });
  });

  it('takes the right secret for the right app, and says why it refuses anything else', async () => {
    expect(await authenticateHandoffClient(digests, 'billing', basic('billing', billing))).toEqual({ ok: true, authenticated: true });
    const refusals: Array<[string | undefined, string]> = [
      [undefined, 'missing'],
      [`Bearer ${billing}`, 'missing'],
      [`basic ${Buffer.from(`billing:${billing}`).toString('base64')}`, 'missing'],
      ['Basic !!!', 'missing'],
      ['Basic YWJj', 'malformed'],
      [basic('billing', 'short'), 'malformed'],
      [basic('billing', `${billing}x`), 'malformed'],
      [basic('ledger', billing), 'another-app'],
      [basic('billing', secret()), 'wrong-secret'],
    ];
    for (const [authorization, reason] of refusals) {
      expect(await authenticateHandoffClient(digests, 'billing', authorization), authorization).toEqual({ ok: false, reason });
    }
  });
});
