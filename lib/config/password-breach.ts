// Parses PASSWORD_BREACH_CHECK, PASSWORD_BREACH_API_URL and PASSWORD_BREACH_TIMEOUT_MS: whether a password being set is
// checked against a breached-password range API, which one, and under what deadline (docs/design/sign-in.md#breached-passwords).
// Problems name the variable and the rule, never a value.
import type { AppEnv } from './schema.ts';

export const PASSWORD_BREACH_MODES = ['off', 'fail-open', 'fail-closed'] as const;
export type PasswordBreachMode = (typeof PASSWORD_BREACH_MODES)[number];

/** Have I Been Pwned's range API: staging's and prod's default. Dev and test never ask it (see below). */
export const PUBLIC_RANGE_API_URL = 'https://api.pwnedpasswords.com/range/';

/**
 * The range API answers from a CDN in tens of milliseconds; 1.5 s is far past a healthy answer and still short next to
 * the sign-in KDF and a person waiting on a form. Its own deadline: a late range API never holds a store's budget.
 */
export const PASSWORD_BREACH_TIMEOUT_MS = 1_500;

export type PasswordBreachCheck =
  | { mode: 'off' }
  /** `rangeUrl` ends in `/`; the 5-character prefix is appended to it. */
  | { mode: 'fail-open' | 'fail-closed'; rangeUrl: string; timeoutMs: number };

export interface PasswordBreachEnv {
  PASSWORD_BREACH_CHECK?: PasswordBreachMode | undefined;
  PASSWORD_BREACH_API_URL?: string | undefined;
  PASSWORD_BREACH_TIMEOUT_MS?: number | undefined;
}

/**
 * staging/prod: fail-open against the public API unless told otherwise; the URL must be public https. dev/test: only a
 * literal loopback address may be asked (npm start's fake, a test's), so no configuration of theirs can reach the
 * public API; with no URL the check is off, and turning it on without one is refused.
 */
export function parsePasswordBreachCheck(e: PasswordBreachEnv, appEnv: AppEnv): { check: PasswordBreachCheck; problems: string[] } {
  const production = appEnv === 'staging' || appEnv === 'prod';
  const timeoutMs = e.PASSWORD_BREACH_TIMEOUT_MS ?? PASSWORD_BREACH_TIMEOUT_MS;
  const raw = e.PASSWORD_BREACH_API_URL ?? (production ? PUBLIC_RANGE_API_URL : undefined);
  if (raw === undefined) {
    if (e.PASSWORD_BREACH_CHECK === undefined || e.PASSWORD_BREACH_CHECK === 'off') return { check: { mode: 'off' }, problems: [] };
    return {
      check: { mode: 'off' },
      problems: [
        `PASSWORD_BREACH_API_URL: required in ${appEnv} when PASSWORD_BREACH_CHECK is ${e.PASSWORD_BREACH_CHECK}: a loopback range API ` +
          '(npm start runs one); dev and test never ask the public one',
      ],
    };
  }
  const problems = urlProblems(raw, production);
  if (problems.length > 0) return { check: { mode: 'off' }, problems };
  const mode = e.PASSWORD_BREACH_CHECK ?? 'fail-open';
  if (mode === 'off') return { check: { mode }, problems: [] };
  return { check: { mode, rangeUrl: raw.endsWith('/') ? raw : `${raw}/`, timeoutMs }, problems: [] };
}

function urlProblems(raw: string, production: boolean): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return ['PASSWORD_BREACH_API_URL: must be an http(s) URL'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push('PASSWORD_BREACH_API_URL: must be an http(s) URL');
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    problems.push('PASSWORD_BREACH_API_URL: must not hold credentials, a query or a fragment (the prefix is appended to its path)');
  }
  if (production && (url.protocol !== 'https:' || loopbackLike(url.hostname))) {
    problems.push('PASSWORD_BREACH_API_URL: must be a public https URL in staging/prod');
  }
  if (!production && !literalLoopback(url.hostname)) {
    problems.push(
      "PASSWORD_BREACH_API_URL: dev and test ask only a literal loopback address (127.0.0.1 or [::1], e.g. npm start's fake); " +
        'the public range API is for staging/prod',
    );
  }
  return problems;
}

/** Provably this machine, whatever DNS or a hosts file says: no name, an IP literal. */
function literalLoopback(hostname: string): boolean {
  return hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Anything that may land on the deployment's own machine. */
function loopbackLike(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' || host.endsWith('.localhost') || host.startsWith('127.') || host === '::1' || host === '0.0.0.0' || host === '::'
  );
}
