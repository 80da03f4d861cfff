// The console's CSRF defence for every state-changing request: the browser must say the request is same-origin (when it
// says anything), and carry `x-csrf-token`, an HMAC of the session's CSRF cookie that only the console's own page is given.
import type { Context } from 'hono';
import { base64urlEncode, hmacSha256, randomToken, timingSafeEqual } from '../crypto/index.ts';
import type { HonoEnv } from '../http/hono-env.ts';
import { readCookie, writeCookie } from './cookies.ts';

export const CSRF_HEADER = 'x-csrf-token';
/** Keeps this HMAC apart from every other use of INDEX_HASH_KEY (each use has a label of its own). */
const LABEL = 'runstate/console-csrf/v1\0';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type CsrfVerdict = { ok: true } | { ok: false; reason: string };

/**
 * The token the page sends: HMAC(INDEX_HASH_KEY, label + cookie). A cookie planted by a sibling subdomain is useless
 * without the key, which a plain double-submit of the cookie's own value would not be; and where the cookie is Secure
 * it is a `__Host-` one (lib/console/cookies.ts), which a sibling cannot plant at all.
 */
export async function csrfTokenFor(indexHashKey: string, secret: string): Promise<string> {
  return base64urlEncode(await hmacSha256(indexHashKey, LABEL + secret));
}

/** The page's token, issuing the CSRF cookie first when the browser has none (or `rotate`: at sign-in and sign-out). */
export async function pageCsrfToken(c: Context<HonoEnv>, options: { rotate?: boolean } = {}): Promise<string> {
  let secret = options.rotate === true ? undefined : readCookie(c, 'csrf');
  if (secret === undefined) {
    secret = randomToken(32);
    writeCookie(c, 'csrf', secret);
  }
  return csrfTokenFor(c.get('deps').config.indexHashKey, secret);
}

export async function checkCsrf(c: Context<HonoEnv>): Promise<CsrfVerdict> {
  if (SAFE_METHODS.has(c.req.method)) return { ok: true };
  // Browsers send Sec-Fetch-Site on every request and Origin on every POST/PUT/PATCH/DELETE; a non-browser may send neither.
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return { ok: false, reason: `a ${site} request` };
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== new URL(c.req.url).origin) return { ok: false, reason: 'a request from another origin' };
  const sent = c.req.header(CSRF_HEADER);
  const secret = readCookie(c, 'csrf');
  if (sent === undefined || secret === undefined) return { ok: false, reason: `no ${CSRF_HEADER} header or no console CSRF cookie` };
  const expected = await csrfTokenFor(c.get('deps').config.indexHashKey, secret);
  return timingSafeEqual(sent, expected) ? { ok: true } : { ok: false, reason: `a wrong ${CSRF_HEADER}` };
}
