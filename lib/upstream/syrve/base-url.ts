// Which Syrve/iiko base URLs the functions may call, so a connection cannot turn them into a tool against internal hosts.
import type { AppEnv } from '../../config/index.ts';
import { classifyHost } from './address.ts';

export type BaseUrlCheck = { ok: true; url: string } | { ok: false; problem: string };

const MAX_LENGTH = 512;

// Names that reach the cloud's metadata service or the inside of a network; single-label names are refused as well.
const REFUSED_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'instance-data', 'metadata']);
// Special-use and never-delegated top-level labels: public DNS cannot answer them, so a name there is someone's inside.
const REFUSED_TLDS = new Set([
  'localhost',
  'local',
  'internal',
  'arpa', // home.arpa and the reverse-lookup names
  'localdomain',
  'lan',
  'home',
  'corp',
  'intranet',
  'private',
  'test',
  'example',
  'invalid',
  'onion',
]);
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const PATH_PREFIX = /^(?:\/[A-Za-z0-9._~-]+)*$/;
// The part of the API's own path people paste with the server address (iikoOffice shows https://host:443/resto/).
const API_PATH_SUFFIX = /\/resto(?:\/api)?$/i;

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function refused(problem: string): BaseUrlCheck {
  return { ok: false, problem };
}

function nameProblem(hostname: string): string | undefined {
  if (hostname.length > 253) return 'the host name is too long';
  const labels = hostname.split('.');
  if (!labels.every((label) => LABEL.test(label))) return 'the host must be a DNS name of letters, digits and hyphens, or an IP address';
  if (labels.length < 2) return 'the host must be a fully qualified name';
  if (REFUSED_NAMES.has(hostname)) return 'the host is a local or metadata name';
  const tld = labels.at(-1) ?? '';
  if (REFUSED_TLDS.has(tld) || /^\d+$/.test(tld)) return `names under .${tld} are not reachable from the internet`;
  return undefined;
}

/**
 * A base URL is an origin plus an optional path prefix (a reverse proxy mounting the server under /iiko, say); the
 * client appends `/resto/api/...`. A pasted trailing `/resto` or `/resto/api` is dropped, as are trailing slashes and
 * the default port, so `https://Rms.Example.com:443/resto/` becomes `https://rms.example.com`.
 *
 * staging/prod: `https:` to a public name or a public IP literal only. dev/test: the same, plus `http:` or `https:` to
 * loopback (127.0.0.0/8, [::1], localhost) so the fake upstream works; other private addresses stay refused there too.
 * Userinfo, a query and a fragment are refused everywhere. WHATWG URL parsing has already turned decimal, octal and hex
 * IPv4 forms (http://2130706433, http://0x7f.1) into dotted quads, so they are judged as the address they name.
 *
 * What this cannot catch: a public name whose DNS answers a private address (a hostile record, or DNS rebinding
 * between this check and the request). fetch on Workers and Lambda resolves the name itself and never shows us the
 * address, so the defence there is the platform's egress policy (docs/design/syrve.md#syrveiiko-upstream).
 */
export function checkSyrveBaseUrl(raw: string, appEnv: AppEnv): BaseUrlCheck {
  const text = raw.trim();
  if (text.length === 0 || text.length > MAX_LENGTH) return refused(`the base URL must be 1 to ${MAX_LENGTH} characters`);
  // URL parsing silently drops tabs and newlines and would accept `?`/`#` as empty parts; refuse them outright.
  if (/[\s?#\\]/.test(text) || hasControlCharacter(text)) {
    return refused('the base URL must not contain spaces, control characters, "?", "#" or "\\"');
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refused('the base URL is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refused('the base URL must use https');
  if (url.username !== '' || url.password !== '' || text.includes('@'))
    return refused('the base URL must not contain a user name or password');

  const hostname = url.hostname.toLowerCase();
  const kind = classifyHost(hostname);
  const localAllowed = appEnv === 'dev' || appEnv === 'test';
  const isLoopback = kind === 'loopback' || hostname === 'localhost';
  if (isLoopback && !localAllowed) return refused('the host is a loopback address');
  if (!isLoopback) {
    if (kind === 'non-public') return refused('the host is a private, link-local, reserved or metadata address');
    if (kind === 'not-an-address') {
      const problem = nameProblem(hostname);
      if (problem) return refused(problem);
    }
    if (url.protocol !== 'https:') return refused(localAllowed ? 'only loopback hosts may use http' : 'the base URL must use https');
  }

  const path = url.pathname.replace(/\/+$/, '').replace(API_PATH_SUFFIX, '');
  if (!PATH_PREFIX.test(path)) return refused('the path prefix may hold letters, digits and "-", ".", "_", "~" only');
  return { ok: true, url: `${url.protocol}//${url.host.toLowerCase()}${path}` };
}
