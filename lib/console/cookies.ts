// The console's cookies: the session's two tokens, an MFA challenge between the two sign-in steps, and the CSRF secret.
// All HttpOnly and SameSite=Strict, scoped to /console (never the API's paths), Secure unless dev/test is served over http.
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { HonoEnv } from '../http/hono-env.ts';

/**
 * No `__Host-` prefix: it demands Path=/, and these must not reach the API's own routes. The refresh token and the MFA
 * challenge go only to /console/session/…, the one place that spends them.
 */
const COOKIES = {
  access: { name: 'rs_console_access', path: '/console' },
  refresh: { name: 'rs_console_refresh', path: '/console/session' },
  mfa: { name: 'rs_console_mfa', path: '/console/session' },
  csrf: { name: 'rs_console_csrf', path: '/console' },
} as const;

export type ConsoleCookie = keyof typeof COOKIES;

/** Secure everywhere but a dev or test server reached over plain http (npm start on 127.0.0.1), where a browser would drop it. */
function secure(c: Context<HonoEnv>): boolean {
  const { appEnv } = c.get('deps').config;
  return !((appEnv === 'dev' || appEnv === 'test') && new URL(c.req.url).protocol === 'http:');
}

export function readCookie(c: Context<HonoEnv>, cookie: ConsoleCookie): string | undefined {
  const value = getCookie(c, COOKIES[cookie].name);
  return value === undefined || value === '' ? undefined : value;
}

/** `maxAgeSeconds` unset: a browser-session cookie (the CSRF secret). */
export function writeCookie(c: Context<HonoEnv>, cookie: ConsoleCookie, value: string, maxAgeSeconds?: number): void {
  setCookie(c, COOKIES[cookie].name, value, {
    path: COOKIES[cookie].path,
    httpOnly: true,
    secure: secure(c),
    sameSite: 'Strict',
    ...(maxAgeSeconds !== undefined ? { maxAge: Math.max(1, Math.floor(maxAgeSeconds)) } : {}),
  });
}

export function clearCookie(c: Context<HonoEnv>, cookie: ConsoleCookie): void {
  deleteCookie(c, COOKIES[cookie].name, { path: COOKIES[cookie].path, httpOnly: true, secure: secure(c), sameSite: 'Strict' });
}
