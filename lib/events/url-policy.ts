// Where an organisation's events may be sent: checked when an endpoint is created or changed, and again before each send.
import type { AppEnv } from '../config/index.ts';
import type { HostResolver } from '../upstream/dns/host-resolver.ts';
import { classifyHost, type AddressKind } from '../upstream/syrve/address.ts';

export const ENDPOINT_URL_MAX_LENGTH = 2048;

export type EndpointUrlCheck =
  | { ok: true; url: string }
  /** Not a URL we accept (VALIDATION_FAILED): the shape, the scheme, credentials, a fragment, the length. */
  | { ok: false; reason: 'bad-url'; problem: string }
  /** A URL whose host is or resolves to an address events must not reach (WEBHOOK_URL_FORBIDDEN). */
  | { ok: false; reason: 'forbidden'; problem: string };

/** Names that reach a cloud's metadata service or the inside of a network, whatever they resolve to. */
const REFUSED_NAMES = new Set(['localhost', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'metadata']);
const REFUSED_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];

/**
 * `dev`: any http(s) URL (a developer's own machine and network). `test`: as staging and prod, but http and loopback
 * are allowed, so tests deliver to loopback receivers and still meet every other refusal. `staging`, `prod`: https
 * only, and the host (an IP literal in any notation the URL parser accepts, or every address a name resolves to)
 * must be a public unicast address. The resolver is asked only after every other check passed, and no connection is
 * made here.
 */
export async function checkEndpointUrl(input: string, context: { appEnv: AppEnv; resolveHost: HostResolver }): Promise<EndpointUrlCheck> {
  if (input.length > ENDPOINT_URL_MAX_LENGTH) return { ok: false, reason: 'bad-url', problem: 'the URL is too long' };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: 'bad-url', problem: 'not an absolute URL' };
  }
  const { appEnv } = context;
  const httpAllowed = appEnv === 'dev' || appEnv === 'test';
  if (url.protocol !== 'https:' && !(httpAllowed && url.protocol === 'http:')) {
    return { ok: false, reason: 'bad-url', problem: httpAllowed ? 'the URL must be http or https' : 'the URL must be https' };
  }
  // Credentials in a URL end up in logs and in every admin's list; the receiver authenticates us by the signature.
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'bad-url', problem: 'the URL must not carry credentials' };
  if (url.hash !== '' || input.includes('#')) return { ok: false, reason: 'bad-url', problem: 'the URL must not have a fragment' };
  if (appEnv === 'dev') return { ok: true, url: url.href };

  const hostname = url.hostname.toLowerCase();
  const literal = classifyHost(hostname);
  if (literal !== 'not-an-address') {
    return allowed(literal, appEnv) ? { ok: true, url: url.href } : forbidden('the host is not a public address');
  }
  const bare = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (REFUSED_NAMES.has(bare) || REFUSED_SUFFIXES.some((suffix) => bare.endsWith(suffix)) || !bare.includes('.')) {
    if (!(appEnv === 'test' && bare === 'localhost')) return forbidden('the host is a local or metadata name');
  }
  let addresses: readonly string[];
  try {
    addresses = await context.resolveHost(bare);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return forbidden('the host does not resolve');
  for (const address of addresses) {
    if (!allowed(classifyResolved(address), appEnv)) return forbidden('the host resolves to an address that is not public');
  }
  return { ok: true, url: url.href };
}

function allowed(kind: AddressKind, appEnv: AppEnv): boolean {
  return kind === 'public' || (appEnv === 'test' && kind === 'loopback');
}

function forbidden(problem: string): EndpointUrlCheck {
  return { ok: false, reason: 'forbidden', problem };
}

/**
 * A resolver's address, read by the same parser as a URL's host: IPv6 goes in brackets and comes out in the canonical
 * form classifyHost reads (an IPv4-mapped tail becomes hex groups). Anything the parser refuses (a zone id, garbage) is
 * not an address, and refused.
 */
function classifyResolved(address: string): AddressKind {
  let hostname: string;
  try {
    hostname = new URL(`http://${address.includes(':') ? `[${address}]` : address}/`).hostname;
  } catch {
    return 'non-public';
  }
  const kind = classifyHost(hostname);
  return kind === 'not-an-address' ? 'non-public' : kind;
}
