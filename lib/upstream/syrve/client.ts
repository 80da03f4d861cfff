// The iiko RMS REST client behind SyrveUpstream: each request re-checks the base URL, has a deadline and is never redirected.
import type { AppEnv } from '../../config/index.ts';
import { checkSyrveBaseUrl } from './base-url.ts';
import { discardBody, readCappedText } from './body.ts';
import { parseStoresXml } from './stores.ts';
import type { CallResult, LoginResult, SyrveStore, SyrveTarget, SyrveUpstream } from './types.ts';

const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
// A token is a UUID; 4 KiB leaves room for whitespace and tells a token from a page that is not one.
const MAX_TOKEN_BODY_BYTES = 4 * 1024;
// Thousands of stores fit in 1 MiB; parsing a full MiB costs about 0.1 s of CPU (docs/design/syrve.md#syrveiiko-upstream).
const MAX_STORES_BODY_BYTES = 1024 * 1024;
// iiko's keys are UUIDs; any printable ASCII up to 512 characters is taken, anything else is not a token.
const SESSION_TOKEN = /^[\x21-\x7e]{1,512}$/;

export interface SyrveClientOptions {
  appEnv: AppEnv;
  /** Tests hand in a spy; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** The deadline of logout and listStores when the caller gives none. */
  requestTimeoutMs?: number;
}

type Sent = { ok: true; response: Response } | { ok: false };

function statusOf(response: Response): { status?: number } {
  // A manual redirect seen by a browser-like fetch is an opaque response with status 0: no status worth reporting.
  return response.status > 0 ? { status: response.status } : {};
}

export function createSyrveClient(options: SyrveClientOptions): SyrveUpstream {
  // Called through a closure: Workers refuses a fetch detached from the global object ("Illegal invocation").
  const send = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const defaultTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;

  /**
   * One GET to `<base>/resto/api/<path>?<query>`. The base URL is checked here, not only when the connection was
   * saved: a row edited in the database must not become a request to an internal host. The query is built with
   * URLSearchParams because the login is user input. A 3xx comes back as a response (redirect: 'manual') and is a
   * failure for every caller: its Location could name an internal address.
   */
  async function get(target: SyrveTarget, path: string, query: Record<string, string>, timeoutMs: number): Promise<Sent> {
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError('Syrve request timeout must be a positive number of ms');
    const base = checkSyrveBaseUrl(target.baseUrl, options.appEnv);
    if (!base.ok) return { ok: false };
    const url = new URL(`${base.url}/resto/api/${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    try {
      const response = await send(url.href, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      return { ok: true, response };
    } catch {
      // Network error or missed deadline. The error is dropped unread: some runtimes put the request URL
      // (with ?pass= or ?key=) into its message.
      return { ok: false };
    }
  }

  return {
    async login(target, credentials, { timeoutMs }): Promise<LoginResult> {
      const sent = await get(target, 'auth', { login: credentials.login, pass: credentials.passwordSha1 }, timeoutMs);
      if (!sent.ok) return { ok: false, reason: 'unavailable' };
      const { response } = sent;
      if (response.status !== 200) {
        await discardBody(response);
        if (response.status === 401 || response.status === 403) return { ok: false, reason: 'refused', status: response.status };
        return { ok: false, reason: 'unavailable', ...statusOf(response) };
      }
      // The body is read under the same deadline: the signal given to fetch also aborts the body stream.
      const body = await readCappedText(response, MAX_TOKEN_BODY_BYTES).catch(() => undefined);
      const sessionId = body?.trim();
      if (sessionId === undefined || !SESSION_TOKEN.test(sessionId)) return { ok: false, reason: 'unavailable' };
      // iiko's auth answer carries no expiry: the caller bounds the session's life itself.
      return { ok: true, sessionId };
    },

    async logout(target, sessionId, logoutOptions) {
      try {
        const sent = await get(target, 'logout', { key: sessionId }, logoutOptions?.timeoutMs ?? defaultTimeoutMs);
        if (sent.ok) await discardBody(sent.response);
      } catch {
        // Best effort: the seat is freed by the upstream's own expiry otherwise.
      }
    },

    async listStores(target, sessionId, callOptions): Promise<CallResult<SyrveStore[]>> {
      const sent = await get(target, 'corporation/stores', { key: sessionId }, callOptions?.timeoutMs ?? defaultTimeoutMs);
      if (!sent.ok) return { ok: false, reason: 'failed' };
      const { response } = sent;
      if (response.status !== 200) {
        await discardBody(response);
        // 403 is iiko's answer to a dead key; some versions answer 401 instead, so both mean "log in again".
        if (response.status === 401 || response.status === 403) return { ok: false, reason: 'forbidden' };
        return { ok: false, reason: 'failed', ...statusOf(response) };
      }
      const xml = await readCappedText(response, MAX_STORES_BODY_BYTES).catch(() => undefined);
      const stores = xml === undefined ? undefined : parseStoresXml(xml);
      return stores ? { ok: true, value: stores } : { ok: false, reason: 'failed' };
    },
  };
}
