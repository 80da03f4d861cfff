// The Syrve/iiko upstream as the runtime sees it: login, logout and the one cheap call, each with a typed outcome.

/** Where a connection's server is: the base URL as stored (checked again before every request). */
export interface SyrveTarget {
  baseUrl: string;
}

/** One row of `GET /resto/api/corporation/stores`. */
export interface SyrveStore {
  id: string;
  code: string | null;
  name: string;
}

/**
 * `refused`: the server answered 401/403 to the credentials. `unavailable`: anything else — another status, a
 * missed deadline, a network error, a redirect, an unusable token, or a base URL the policy refuses (no status then).
 * iiko's auth answer carries no expiry, so `expiresAtMs` stays undefined for it; the field is for upstreams that do.
 */
export type LoginResult =
  | { ok: true; sessionId: string; expiresAtMs?: number }
  | { ok: false; reason: 'refused'; status: number }
  | { ok: false; reason: 'unavailable'; status?: number };

/**
 * `forbidden`: the session is dead (403, and 401 which some iiko versions answer for a dead key): log in again.
 * `failed`: anything else, with the HTTP status when there was one.
 */
export type CallResult<T> = { ok: true; value: T } | { ok: false; reason: 'forbidden' } | { ok: false; reason: 'failed'; status?: number };

/** No method throws on the upstream's behalf; results and errors never carry a session id, a password, its SHA-1 or a URL. */
export interface SyrveUpstream {
  login(target: SyrveTarget, credentials: { login: string; passwordSha1: string }, options: { timeoutMs: number }): Promise<LoginResult>;
  /** Best effort, never throws: frees the licence seat the session holds. */
  logout(target: SyrveTarget, sessionId: string, options?: { timeoutMs?: number }): Promise<void>;
  listStores(target: SyrveTarget, sessionId: string, options?: { timeoutMs?: number }): Promise<CallResult<SyrveStore[]>>;
}
