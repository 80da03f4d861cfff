// Points one Neon driver instance at the local Neon proxy (local/emulators/neon) so dev and tests reach a plain Postgres.
import type { NeonConfigGlobalAndClient, neonConfig as NeonConfigClass } from '@neondatabase/serverless';

/** The driver's global configuration class, handed in by whoever loaded the driver (lib/pg/db.ts loads it lazily). */
type NeonGlobalConfig = typeof NeonConfigClass;

// The driver reads fetchEndpoint only from the global neonConfig, so the proxy URL travels per instance
// inside fetchOptions under this field, and a pass-through fetchFunction turns it into the request URL.
const PROXY_FIELD = 'runstateNeonLocalProxyUrl';

let fetchRouterInstalled = false;

/** Parses and normalises a local proxy URL such as http://127.0.0.1:5999 (no trailing slash). */
function parseLocalProxyUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('neonLocalProxyUrl is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error('neonLocalProxyUrl must be an http:// or https:// URL');
  }
  return parsed;
}

/** fetchOptions for neon() that send its HTTP queries to `${proxyUrl}/sql` instead of Neon's endpoint. */
export function localProxyFetchOptions(proxyUrl: string, neonConfig: NeonGlobalConfig): Record<string, unknown> {
  const parsed = parseLocalProxyUrl(proxyUrl);
  installFetchRouter(neonConfig);
  return { [PROXY_FIELD]: `${parsed.origin}/sql` };
}

/** Applies the local proxy's WebSocket settings to one client's socket (wsProxy, plain ws:, no pipelining). */
export function useLocalProxySocket(socket: NeonConfigGlobalAndClient, proxyUrl: string): void {
  const parsed = parseLocalProxyUrl(proxyUrl);
  const proxyHost = parsed.host;
  socket.wsProxy = (host, port) => `${proxyHost}/v1?address=${host}:${port}`;
  socket.useSecureWebSocket = parsed.protocol === 'https:';
  // 'password' pipelining assumes cleartext auth; a plain Postgres uses trust or SCRAM.
  socket.pipelineConnect = false;
}

function installFetchRouter(neonConfig: NeonGlobalConfig): void {
  if (fetchRouterInstalled) return;
  fetchRouterInstalled = true;
  const previous = neonConfig.fetchFunction as typeof fetch | undefined;
  neonConfig.fetchFunction = (input: RequestInfo | URL, init?: RequestInit & Record<string, unknown>) => {
    const target = init?.[PROXY_FIELD];
    const send = (url: RequestInfo | URL, options?: RequestInit) =>
      previous !== undefined ? previous(url, options) : globalThis.fetch(url, options);
    if (typeof target !== 'string' || init === undefined) return send(input, init);
    const { [PROXY_FIELD]: _routed, ...options } = init;
    return send(target, options);
  };
}
