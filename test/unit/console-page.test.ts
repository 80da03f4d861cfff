// The console without services: its script parses, its page has nothing inline, CONSOLE_ENABLED's defaults, and the dev
// link absent from staging and prod, answered before any store is touched (the unit project runs with no network).
import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.ts';
import { loadConfig } from '../../lib/config/index.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { CONSOLE_SCRIPT, CONSOLE_STYLE, consoleShell, UA_PARSER_SCRIPT, WEBAUTHN_SCRIPT } from '../../lib/console/page/index.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

const production = (appEnv: 'staging' | 'prod', extra: Record<string, string> = {}) => ({
  APP_ENV: appEnv,
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
  ...extra,
});

describe('the page', () => {
  it('has a script that parses as JavaScript and a stylesheet, both served as they are', () => {
    // The source file, byte for byte: its `?raw` import is the file's text, with nothing transpiled or minified.
    expect(CONSOLE_SCRIPT).toBe(readFileSync(new URL('../../lib/console/page/browser/console.js', import.meta.url), 'utf8'));
    expect(() => new Script(CONSOLE_SCRIPT)).not.toThrow();
    expect(CONSOLE_SCRIPT).not.toMatch(/localStorage|sessionStorage|document\.cookie|innerHTML|eval\(/);
    expect(CONSOLE_STYLE).toContain(':focus-visible');
    // @simplewebauthn/browser's browser bundle as the package ships it, a classic script that parses as one.
    const bundle = new URL('../../node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js', import.meta.url);
    expect(WEBAUTHN_SCRIPT).toBe(readFileSync(bundle, 'utf8'));
    expect(() => new Script(WEBAUTHN_SCRIPT)).not.toThrow();
    // ua-parser-js's browser build likewise (shielded from the page's named elements), with no eval the CSP would refuse.
    const parser = new URL('../../node_modules/ua-parser-js/dist/ua-parser.min.js', import.meta.url);
    expect(UA_PARSER_SCRIPT).toBe(`(function (exports, module, define) {\n${readFileSync(parser, 'utf8')}\n})();\n`);
    expect(() => new Script(UA_PARSER_SCRIPT)).not.toThrow();
    expect(UA_PARSER_SCRIPT).not.toMatch(/\beval\(|new Function/);
  });

  it('has no inline script or style, and refuses a CSRF token that is not base64url', () => {
    const html = consoleShell({ csrfToken: 'abc_-123', signedIn: true });
    expect(html).toContain('<meta name="csrf-token" content="abc_-123">');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|\son[a-z]+=|\sstyle=|<style/);
    expect(() => consoleShell({ csrfToken: '"><script>', signedIn: false })).toThrow();
  });
});

describe('CONSOLE_ENABLED', () => {
  it('is on by default in dev only, and turns the console on or off anywhere', () => {
    expect(loadConfig(production('prod')).console.enabled).toBe(false);
    expect(loadConfig(production('staging', { CONSOLE_ENABLED: 'true' })).console.enabled).toBe(true);
    const dev = {
      UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:8079',
      UPSTASH_REDIS_REST_TOKEN: 'token',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/app',
      AUTH_JWT_SECRET: 'x'.repeat(32),
      INDEX_HASH_KEY: 'k'.repeat(32),
      PASSKEY_RP_ID: 'localhost',
      PASSKEY_ORIGINS: 'http://localhost:8787',
    };
    expect(loadConfig(dev).console.enabled).toBe(true);
    expect(loadConfig({ ...dev, CONSOLE_ENABLED: 'false' }).console.enabled).toBe(false);
    expect(loadConfig({ ...dev, APP_ENV: 'test' }).console.enabled).toBe(false);
    expect(() => loadConfig({ ...dev, CONSOLE_ENABLED: 'yes' })).toThrow('CONSOLE_ENABLED');
  });
});

describe('the dev link', () => {
  it.each(['staging', 'prod'] as const)(
    'does not exist in %s, even with the console on: 404, no cookie, no store touched',
    async (appEnv) => {
      const deps = createDeps(loadConfig(production(appEnv, { CONSOLE_ENABLED: 'true' })));
      const app = createApp(() => deps);
      const response = await app.request(`/console/dev-login?code=rsd_${'A'.repeat(43)}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no such route' } });
      expect(response.headers.get('set-cookie')).toBeNull();
      // The page itself is there (a Secure cookie here: not dev or test).
      const page = await app.request('https://console.example/console');
      expect(page.status).toBe(200);
      expect(page.headers.get('set-cookie')).toMatch(/^__Host-rs_console_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    },
  );
});
