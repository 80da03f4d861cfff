// The headers of every console response beside the app-wide ones (lib/http/security-headers.ts: no sniffing, framing or
// referrer): a strict CSP (the page's one script and one stylesheet come from /console itself, nothing inline), and
// nothing of it kept in a cache.
import type { Context } from 'hono';
import type { HonoEnv } from '../http/hono-env.ts';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function setConsoleHeaders(c: Context<HonoEnv>, options: { cacheable?: boolean } = {}): void {
  c.header('content-security-policy', CONSOLE_CSP);
  // The page and the API answers carry session state; only the two static assets may be kept (and revalidated).
  c.header('cache-control', options.cacheable === true ? 'no-cache' : 'no-store');
}
