// The console's cookies: the session's two tokens, an MFA challenge between the two sign-in steps, and the CSRF secret.
// All HttpOnly and SameSite=Strict. Secure ones (every deployment but dev/test over http) are `__Host-` cookies at Path=/;
// over plain http they keep their plain names, scoped to /console.
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { HonoEnv } from '../http/hono-env.ts';

/**
 * Over http (npm start on 127.0.0.1) no prefix is possible, and the narrow paths keep the tokens off the API's requests:
 * the refresh token and the MFA challenge go only to /console/session/…, the one place that spends them.
 */
const COOKIES = {
  access: { name: 'rs_console_access', path: '/console' },
  refresh: { name: 'rs_console_refresh', path: '/console/session' },
  mfa: { name: 'rs_console_mfa', path: '/console/session' },
  csrf: { name: 'rs_console_csrf', path: '/console' },
} as const;

export type ConsoleCookie = keyof typeof COOKIES;

/**
 * The prefix a Secure cookie gets. `__Host-` binds it to this exact host: no Domain, so a sibling subdomain (or a page
 * of this host over http) can neither set nor shadow it; without it, another subdomain could plant a session or CSRF
 * cookie of its own choosing for /console. The prefix demands Path=/, which is why these are not scoped to /console:
 * a path is no boundary inside one origin anyway, no API route reads a cookie (bearer tokens only), and the console's
 * own calls to the API drop the cookie header (lib/console/forward.ts).
 */
const SECURE_COOKIE_PREFIX = '__Host-';

/** Secure everywhere but a dev or test server reached over plain http (npm start on 127.0.0.1), where a browser would drop it. */
function secure(c: Context<HonoEnv>): boolean {
  const { appEnv } = c.get('deps').config;
  return !((appEnv === 'dev' || appEnv === 'test') && new URL(c.req.url).protocol === 'http:');
}

/** The cookie's name, path and Secure flag as this request's deployment writes and reads it. */
function shape(c: Context<HonoEnv>, cookie: ConsoleCookie): { name: string; path: string; secure: boolean } {
  const { name, path } = COOKIES[cookie];
  return secure(c) ? { name: `${SECURE_COOKIE_PREFIX}${name}`, path: '/', secure: true } : { name, path, secure: false };
}

export function readCookie(c: Context<HonoEnv>, cookie: ConsoleCookie): string | undefined {
  const value = getCookie(c, shape(c, cookie).name);
  return value === undefined || value === '' ? undefined : value;
}

/** `maxAgeSeconds` unset: a browser-session cookie (the CSRF secret). */
export function writeCookie(c: Context<HonoEnv>, cookie: ConsoleCookie, value: string, maxAgeSeconds?: number): void {
  const { name, path, secure: isSecure } = shape(c, cookie);
  setCookie(c, name, value, {
    path,
    httpOnly: true,
    secure: isSecure,
    sameSite: 'Strict',
    ...(maxAgeSeconds !== undefined ? { maxAge: Math.max(1, Math.floor(maxAgeSeconds)) } : {}),
  });
}

export function clearCookie(c: Context<HonoEnv>, cookie: ConsoleCookie): void {
  const { name, path, secure: isSecure } = shape(c, cookie);
  deleteCookie(c, name, { path, httpOnly: true, secure: isSecure, sameSite: 'Strict' });
}
