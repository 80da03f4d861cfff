// Node only (the Node and Lambda entries, the local stack): the stores' HTTP calls — the Upstash REST endpoints and
// the Neon SQL endpoint — go over node:http with keep-alive instead of global fetch, whose Request, Response, Headers
// and body streams cost more CPU than the call itself (bench/README.md#cpu-per-request). Workers keep their fetch.
import http from 'node:http';
import https from 'node:https';
import type { Config } from '../../lib/config/index.ts';

/** What the drivers send: @upstash/redis (pkg/http.ts) and @neondatabase/serverless (its HTTP query) each POST a string. */
interface StoreRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal | null;
}

/** The part of a Response the two drivers read: the status, a header, the body as text or JSON. */
interface StoreResponse {
  ok: boolean;
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  json(): Promise<unknown>;
}

// Fields of RequestInit the drivers set that mean nothing to a plain POST over a kept-alive socket.
const IGNORED_INIT_FIELDS = new Set(['method', 'headers', 'body', 'signal', 'keepalive', 'cache', 'agent', 'backend']);

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) } as const;

let storeOrigins: Set<string> | undefined;
const configsRouted = new WeakSet<Config>();

/**
 * Sends the drivers' calls to `config`'s stores over node:http; every other fetch (the Syrve upstream, JWKS, anything
 * whose shape this does not serve) goes to the fetch there was. Once per process; later configs add their stores.
 */
export function routeStoreFetch(config: Config): void {
  if (configsRouted.has(config)) return;
  configsRouted.add(config);
  const origins = [config.redis.url, config.revocationRedis.url, neonSqlEndpoint(config)].flatMap(originOf);
  if (storeOrigins !== undefined) {
    for (const origin of origins) storeOrigins.add(origin);
    return;
  }
  const routed = new Set(origins);
  storeOrigins = routed;
  const previous = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    typeof input === 'string' && servesStoreCall(routed, input, init)
      ? storeFetch(input, init as StoreRequestInit)
      : previous(input, init)) as typeof fetch;
}

// Where the driver sends queries: the local proxy's /sql, or Neon's own endpoint for the host (api. in place of the
// first label, the driver's default fetchEndpoint).
function neonSqlEndpoint(config: Config): string {
  if (config.neonLocalProxyUrl !== undefined) return `${new URL(config.neonLocalProxyUrl).origin}/sql`;
  const host = new URL(`http:${config.databaseUrl.slice(config.databaseUrl.indexOf(':') + 1)}`).hostname;
  return `https://${host.replace(/^[^.]+\./, 'api.')}/sql`;
}

// A URL that names no origin fetch could reach (Neon's endpoint for an IP address host) routes nothing.
function originOf(url: string): string[] {
  return URL.canParse(url) ? [new URL(url).origin] : [];
}

function servesStoreCall(origins: Set<string>, url: string, init: RequestInit | undefined): boolean {
  if (init === undefined || init.method !== 'POST' || typeof init.body !== 'string') return false;
  if (init.headers !== undefined && (typeof init.headers !== 'object' || init.headers instanceof Headers || Array.isArray(init.headers)))
    return false;
  for (const field of Object.keys(init)) {
    if (!IGNORED_INIT_FIELDS.has(field) && (init as Record<string, unknown>)[field] !== undefined) return false;
  }
  const afterScheme = url.indexOf('/', url.indexOf('//') + 2);
  return origins.has(afterScheme === -1 ? url : url.slice(0, afterScheme));
}

/** One POST; rejects as fetch does: with the signal's reason once it aborts, a TypeError when the connection fails. */
function storeFetch(url: string, init: StoreRequestInit): Promise<StoreResponse> {
  return new Promise((resolve, reject) => {
    const { signal } = init;
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const body = init.body ?? '';
    const target = new URL(url);
    const transport = target.protocol === 'https:' ? https : http;
    const request = transport.request(target, {
      method: 'POST',
      agent: target.protocol === 'https:' ? agents['https:'] : agents['http:'],
      headers: { ...init.headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    const onAbort = () => {
      request.destroy();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const fail = (error: Error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new TypeError('fetch failed', { cause: error }));
    };
    request.on('error', fail);
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('error', fail);
      response.on('close', () => {
        if (!response.complete) fail(new Error('the connection closed before the answer ended'));
      });
      response.on('end', () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(storeResponse(response, text));
      });
    });
    request.end(body);
  });
}

function storeResponse(response: http.IncomingMessage, text: string): StoreResponse {
  const status = response.statusCode ?? 0;
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: response.statusMessage ?? '',
    headers: {
      get: (name) => {
        const value = response.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    text: () => Promise.resolve(text),
    json: () => Promise.resolve().then(() => JSON.parse(text) as unknown),
  };
}
