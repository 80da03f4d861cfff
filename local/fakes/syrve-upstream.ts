// A fake iiko/Syrve RMS server on loopback for npm start, the tests and the bench: auth, logout, the stores list, faults, counts.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from '../emulators/neon/index.ts';
import type { SyrveStore } from '../../lib/upstream/syrve/index.ts';

export interface FakeSyrveOptions {
  /** login → plain password; the fake compares `pass` with its SHA-1 hex as iiko does. */
  accounts?: Record<string, string>;
  /** How long a key stays valid after login (default one hour). */
  sessionTtlMs?: number;
  stores?: SyrveStore[];
  /** 0 (the default) picks a free port. */
  port?: number;
  /**
   * Serves `PUT /_fake/accounts/{login}` (body: the new password) so a shell can change a password as an operator
   * would on the real server; npm start turns it on for its rotation walkthrough. Off by default.
   */
  accountsRoute?: boolean;
}

export interface FakeSyrveStats {
  /** Successful logins, i.e. licence seats taken. */
  logins: number;
  failedLogins: number;
  /** Requests to the stores call, whatever they were answered. */
  calls: number;
  forbiddenAnswers: number;
  logouts: number;
  /** Sessions neither logged out nor expired: the seats in use now. */
  liveSessions: number;
}

export interface FakeSyrve {
  /** http://127.0.0.1:<port>, a base URL the dev/test policy accepts. */
  url: string;
  close(): Promise<void>;
  stats(): FakeSyrveStats;
  resetStats(): void;
  setAccount(login: string, password: string): void;
  /** Holds every answer this long before sending it. */
  setDelay(ms: number): void;
  /** The next `n` stores calls answer 403 even with a valid key (the session stays valid). */
  forbidNext(n: number): void;
  forbidAlways(on: boolean): void;
  /** Every login answers 401, right password or not. */
  refuseLogins(on: boolean): void;
  /** Every key issued so far stops working (403), as after an upstream restart. */
  expireSessions(): void;
  /** Every session key issued since start, live or not. */
  issuedSessions(): string[];
}

const DEFAULT_FAKE_STORES: SyrveStore[] = [
  { id: '1b3ad7a2-38c5-4c1e-9d5e-4a2f0b6c1d01', code: '1', name: 'Main store' },
  { id: '1b3ad7a2-38c5-4c1e-9d5e-4a2f0b6c1d02', code: '2', name: 'Bar & Kitchen' },
  { id: '1b3ad7a2-38c5-4c1e-9d5e-4a2f0b6c1d03', code: null, name: 'Кухня <cold>' },
];

function isLoopbackHostHeader(host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return isLoopbackHost(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}

function sha1Hex(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ENTITIES[c] ?? c);
}

/** The stores list as iiko serializes it (JAXB: a plural-ish root, one element per row, an empty code as <code/>). */
function storesXml(stores: SyrveStore[]): string {
  const rows = stores.map(
    (store) =>
      `<corporateItemDto><id>${escapeXml(store.id)}</id>${store.code === null ? '<code/>' : `<code>${escapeXml(store.code)}</code>`}` +
      `<name>${escapeXml(store.name)}</name><type>STORE</type></corporateItemDto>`,
  );
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<corporateItemDtoes>${rows.join('')}</corporateItemDtoes>`;
}

const ACCOUNTS_PATH = '/_fake/accounts/';
// A password is short; anything bigger is a mistake, not a password.
const MAX_PASSWORD_BYTES = 4096;

function answer(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }).end(body);
}

export async function startFakeSyrve(options: FakeSyrveOptions = {}): Promise<FakeSyrve> {
  const accounts = new Map(Object.entries(options.accounts ?? {}));
  const sessionTtlMs = options.sessionTtlMs ?? 60 * 60 * 1000;
  const stores = options.stores ?? DEFAULT_FAKE_STORES;
  // key → expiry (ms since epoch)
  const sessions = new Map<string, number>();
  // Every key ever handed out, for canary tests that search for session ids where they must not be.
  const issued: string[] = [];
  const pending = new Set<NodeJS.Timeout>();
  let stats = { logins: 0, failedLogins: 0, calls: 0, forbiddenAnswers: 0, logouts: 0 };
  let delayMs = 0;
  let forbidCount = 0;
  let forbidAll = false;
  let refuseAll = false;

  const isLive = (key: string | null): boolean => {
    const expiresAt = key === null ? undefined : sessions.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt > Date.now()) return true;
    sessions.delete(key as string);
    return false;
  };

  function setAccountFromRequest(req: IncomingMessage, res: ServerResponse, path: string): void {
    if (req.method !== 'PUT') return answer(res, 405, 'method not allowed');
    // Browsers send Origin on every PUT, same-origin (a rebound DNS name) or not; curl sends none.
    if (req.headers.origin !== undefined) return answer(res, 403, 'not from a browser');
    let login: string;
    try {
      login = decodeURIComponent(path.slice(ACCOUNTS_PATH.length));
    } catch {
      return answer(res, 400, 'the login is not valid percent-encoding');
    }
    if (login === '' || login.length > 200 || login.includes('/')) return answer(res, 400, 'one login, 1 to 200 characters');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PASSWORD_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size === 0 || size > MAX_PASSWORD_BYTES) return answer(res, 400, `the body is the password, 1 to ${MAX_PASSWORD_BYTES} bytes`);
      accounts.set(login, Buffer.concat(chunks).toString('utf8'));
      answer(res, 204, '');
    });
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    // A dev tool serves no browser: a page's request carries Origin, and a DNS-rebound one a foreign Host.
    if (req.headers.origin !== undefined) return answer(res, 403, 'not from a browser');
    if (!isLoopbackHostHeader(req.headers.host)) return answer(res, 403, 'loopback host names only');
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const query = url.searchParams;
    if (options.accountsRoute === true && url.pathname.startsWith(ACCOUNTS_PATH)) return setAccountFromRequest(req, res, url.pathname);
    if (req.method !== 'GET') return answer(res, 405, 'method not allowed');
    switch (url.pathname) {
      case '/resto/api/auth': {
        const login = query.get('login') ?? '';
        const password = accounts.get(login);
        if (refuseAll || password === undefined || !sameText(query.get('pass') ?? '', sha1Hex(password))) {
          stats.failedLogins += 1;
          return answer(res, 401, 'Wrong login or password');
        }
        stats.logins += 1;
        const key = randomUUID();
        sessions.set(key, Date.now() + sessionTtlMs);
        issued.push(key);
        return answer(res, 200, key);
      }
      case '/resto/api/logout': {
        const key = query.get('key');
        if (key !== null && sessions.delete(key)) stats.logouts += 1;
        return answer(res, 200, '');
      }
      case '/resto/api/corporation/stores': {
        stats.calls += 1;
        const forced = forbidAll || forbidCount > 0;
        forbidCount = Math.max(0, forbidCount - 1);
        if (!forced && isLive(query.get('key'))) return answer(res, 200, storesXml(stores), 'application/xml');
        stats.forbiddenAnswers += 1;
        return answer(res, 403, 'Token is expired or invalid');
      }
      default:
        return answer(res, 404, 'not found');
    }
  }

  const server = createServer((req, res) => {
    if (delayMs <= 0) return handle(req, res);
    const timer = setTimeout(() => {
      pending.delete(timer);
      // The client may have given up meanwhile; then there is no one to answer.
      if (!req.socket.destroyed) handle(req, res);
    }, delayMs);
    pending.add(timer);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of pending) clearTimeout(timer);
        pending.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    stats: () => {
      for (const key of sessions.keys()) isLive(key);
      return { ...stats, liveSessions: sessions.size };
    },
    issuedSessions: () => [...issued],
    resetStats: () => {
      stats = { logins: 0, failedLogins: 0, calls: 0, forbiddenAnswers: 0, logouts: 0 };
    },
    setAccount: (login, password) => {
      accounts.set(login, password);
    },
    setDelay: (ms) => {
      delayMs = ms;
    },
    forbidNext: (n) => {
      forbidCount = n;
    },
    forbidAlways: (on) => {
      forbidAll = on;
    },
    refuseLogins: (on) => {
      refuseAll = on;
    },
    expireSessions: () => {
      sessions.clear();
    },
  };
}
