// `npm run config:check`: every problem of an environment in one look (a variable's own and those between variables),
// names and never values, exit 1 without a stack trace; a valid environment says so and exits 0.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/launcher/data-dir.ts';
import { configReport } from '../../ops/config-check/report.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

const canary = 'canary-value-never-printed';
const prod = {
  APP_ENV: 'prod',
  UPSTASH_REDIS_REST_URL: 'https://main.upstash.example',
  UPSTASH_REDIS_REST_TOKEN: canary,
  REVOCATION_REDIS_REST_URL: 'https://revocation.upstash.example',
  REVOCATION_REDIS_REST_TOKEN: canary,
  DATABASE_URL: `postgres://app:${canary}@ep-x.neon.example/app`,
  AUTH_SIGNING_KEYS: testSigningKeys(),
  AUTH_TOKEN_ISSUER: 'https://auth.example/',
  SECRETS_KEYS: `k1:${btoa(String.fromCharCode(...new Uint8Array(32)))}`,
  INDEX_HASH_KEY: 'k'.repeat(32),
  WEBHOOK_SECRET: `whsec_${btoa('sixteen-bytes-xx')}`,
  PASSKEY_RP_ID: 'example.com',
  PASSKEY_ORIGINS: 'https://app.example.com',
};

describe('configReport', () => {
  it('says a valid environment is valid', () => {
    expect(configReport(prod)).toEqual({ ok: true, text: 'config:check: the configuration is valid for APP_ENV=prod' });
  });

  it("lists a variable's own problems and those between variables together, in one look", () => {
    const report = configReport({
      ...prod,
      PORT: canary, // its own check: not a number
      INDEX_HASH_KEY: undefined, // its own check: required
      UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:8079', // between: loopback and plain http in prod
      WEBHOOK_SECRET: undefined, // between: required in prod
      INVITE_TTL_SECONDS: '60', // between: test only
    });
    expect(report.ok).toBe(false);
    const lines = report.text.split('\n');
    expect(lines[0]).toBe('config:check: 6 problems for APP_ENV=prod:');
    expect(lines.slice(1).map((line) => /^ {2}- ([A-Z_]+):/.exec(line)?.[1])).toEqual([
      'PORT',
      'INDEX_HASH_KEY',
      'INVITE_TTL_SECONDS',
      'UPSTASH_REDIS_REST_URL',
      'UPSTASH_REDIS_REST_URL',
      'WEBHOOK_SECRET',
    ]);
    expect(report.text).toContain('INDEX_HASH_KEY: required, and not set');
    expect(report.text).not.toContain(canary);
  });

  it('does not repeat, between variables, a problem of a variable that failed its own check', () => {
    const report = configReport({ ...prod, SECRETS_KEYS: 'not-a-key-list', INVITE_TTL_SECONDS: '60' });
    expect(report.text.match(/SECRETS_KEYS/g)).toHaveLength(1);
    expect(report.text).toContain('INVITE_TTL_SECONDS');
  });

  it('never repeats any part of SECRETS_KEYS, the part before a colon included (a key pasted first would be it)', () => {
    const key = btoa(String.fromCharCode(...new Uint8Array(32)));
    for (const value of [`canaryKeyMaterial:not*base64`, `canaryKeyMaterial:${btoa('short')}`, `k1:${key},canaryKeyMaterial:x*`]) {
      const report = configReport({ ...prod, SECRETS_KEYS: value });
      expect(report.text).toContain('SECRETS_KEYS: entry ');
      expect(report.text).not.toContain('canaryKeyMaterial');
    }
  });

  it('never repeats an APP_ENV it does not know', () => {
    const report = configReport({ ...prod, APP_ENV: canary });
    expect(report.ok).toBe(false);
    expect(report.text).toMatch(/^config:check: 1 problem for this APP_ENV:\n {2}- APP_ENV: /);
    expect(report.text).not.toContain(canary);
  });
});

it('npm run config:check exits 1 with the list and no stack trace, and 0 on a valid environment', async () => {
  const run = (env: Record<string, string>) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'ops/config-check.ts'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  const failing = await run({ ...prod, WEBHOOK_SECRET: '', PORT: 'x' });
  expect(failing.code).toBe(1);
  expect(failing.stderr).toMatch(
    /^config:check: 2 problems for APP_ENV=prod:\n {2}- PORT: .*\n {2}- WEBHOOK_SECRET: required in staging\/prod\n$/,
  );
  expect(failing.stderr).not.toMatch(/\n\s+at /);
  const passing = await run(prod);
  expect(passing).toEqual({ code: 0, stdout: 'config:check: the configuration is valid for APP_ENV=prod\n', stderr: '' });
}, 30_000);
