// Whether a password being set may be used: asked of the configured range API by k-anonymity, and what a check that
// could not answer means under PASSWORD_BREACH_CHECK (docs/design/sign-in.md#breached-passwords). Callers run it before
// they write anything or consume a token, so a refusal leaves everything as it was.
import type { Deps } from '../../deps.ts';
import { fetchRange } from './fetch-range.ts';
import { findSuffix } from './range-answer.ts';
import { rangeQuery } from './range-query.ts';

export type BreachCheckOutcome =
  | { ok: true }
  /** The range API lists the password: `400 PASSWORD_BREACHED`. */
  | { ok: false; reason: 'password-breached' }
  /** fail-closed, and the range API was late, unreachable or answered something that is no range: `503`. */
  | { ok: false; reason: 'breach-check-unavailable' };

export async function checkPasswordBreach(deps: Deps, input: { password: string; correlationId: string }): Promise<BreachCheckOutcome> {
  const check = deps.config.passwordBreach;
  if (check.mode === 'off') return { ok: true };
  const { prefix, suffix } = await rangeQuery(input.password);
  const fetched = await fetchRange(check.rangeUrl, prefix, check.timeoutMs);
  const verdict = fetched.ok ? findSuffix(fetched.body, suffix) : 'malformed';
  if (verdict === 'breached') {
    deps.logger.info('password_breached_refused', { correlationId: input.correlationId });
    return { ok: false, reason: 'password-breached' };
  }
  if (verdict === 'not-found') return { ok: true };
  // Neither the password nor its hash nor the prefix is logged: the prefix narrows the password to one range.
  const allowed = check.mode === 'fail-open';
  deps.logger.warn('password_breach_check_failed', {
    failure: fetched.ok ? 'malformed' : fetched.failure,
    status: fetched.ok ? undefined : fetched.status,
    mode: check.mode,
    allowed,
    correlationId: input.correlationId,
  });
  return allowed ? { ok: true } : { ok: false, reason: 'breach-check-unavailable' };
}
