// The cookie that binds an OIDC state to the browser that started it (docs/design/oidc.md#oidc-sign-in): set by /start,
// read and cleared by the callback. HttpOnly; SameSite=Lax, so the provider's top-level redirect back carries it.
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { OidcProviderConfig } from '../../lib/config/index.ts';
import type { HonoEnv } from '../../lib/http/hono-env.ts';

const NAME = 'rs_oidc_binding';

interface CookieShape {
  name: string;
  path: string;
  secure: boolean;
}

/**
 * Secure when the deployment is https, i.e. the provider's registered callback is (staging and prod must be: the config
 * refuses anything else). Secure means the `__Host-` prefix, so no sibling host can plant the cookie, and that prefix
 * demands Path=/. Over plain http (npm start, the tests) the path is the callback's own, the narrowest that still reaches it.
 */
function shape(provider: OidcProviderConfig): CookieShape {
  const callback = new URL(provider.redirectUri);
  const secure = callback.protocol === 'https:';
  return secure ? { name: `__Host-${NAME}`, path: '/', secure } : { name: NAME, path: callback.pathname, secure };
}

export function setBindingCookie(c: Context<HonoEnv>, provider: OidcProviderConfig, value: string, maxAgeSeconds: number): void {
  const { name, path, secure } = shape(provider);
  setCookie(c, name, value, { path, secure, httpOnly: true, sameSite: 'Lax', maxAge: maxAgeSeconds });
}

export function readBindingCookie(c: Context<HonoEnv>, provider: OidcProviderConfig): string | undefined {
  const value = getCookie(c, shape(provider).name);
  return value === undefined || value === '' ? undefined : value;
}

export function clearBindingCookie(c: Context<HonoEnv>, provider: OidcProviderConfig): void {
  const { name, path, secure } = shape(provider);
  deleteCookie(c, name, { path, secure, httpOnly: true, sameSite: 'Lax' });
}
