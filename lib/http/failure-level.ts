// How loudly a 5xx answer is logged: `error` is for what someone must look at (a bug, a store of ours down); a
// deployment's own choice or another party's hiccup is answered the same way but logged below it, so an alert on
// `error` stays worth waking up for.
import type { ERROR_CATALOG, ErrorCode } from './error-catalog.ts';

type ServerErrorCode = { [C in ErrorCode]: (typeof ERROR_CATALOG)[C]['status'] extends 500 | 502 | 503 ? C : never }[ErrorCode];
export type FailureLevel = 'info' | 'warn' | 'error';

// Every 5xx code must be placed: a new one fails the typecheck until someone decides how loud it is.
const LEVELS: Record<ServerErrorCode, FailureLevel> = {
  INTERNAL_ERROR: 'error',
  STORE_UNAVAILABLE: 'error',
  REVOCATION_UNAVAILABLE: 'error',
  // Another party (the Syrve/iiko server, an identity provider, the range API, a DNS resolver) failed or was late;
  // the caller is told to try again, and a burst of them shows in the warn lines.
  UPSTREAM_FAILED: 'warn',
  UPSTREAM_BUSY: 'warn',
  BREACH_CHECK_UNAVAILABLE: 'warn',
  DNS_LOOKUP_FAILED: 'warn',
  // The deployment left the feature off (docs/api.md#errors): every such request is answered so, by design.
  NOT_CONFIGURED: 'info',
};

export function failureLevel(code: ErrorCode): FailureLevel {
  return (LEVELS as Partial<Record<ErrorCode, FailureLevel>>)[code] ?? 'error';
}
