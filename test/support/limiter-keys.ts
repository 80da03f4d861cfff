// The rate limiter counts every authenticated request, refused ones too, and fills an organisation's plan entry after
// its first one (docs/design/limits.md#api-rate-limits): where a test asserts what an operation wrote, its round trips
// or its WARNs, the limiter's are not it.
import type { Deps } from '../../lib/deps.ts';
import { fillPlanLimits } from '../../lib/runtime/ratelimit/plan.ts';

const LIMITER_KEY = /:ratelimit:counter:|:cache:rate-limits:/;

export function withoutLimiterKeys(keys: string[]): string[] {
  return keys.filter((key) => !LIMITER_KEY.test(key));
}

/** Log lines that are not the limiter's own (its outage WARN, and its plan entry's fill). */
export function withoutLimiterLogs(lines: string[]): string[] {
  return lines.filter((line) => !line.includes('"rate_limit_') && !line.includes('"cache":"plan-limits"'));
}

/** Fills the organisation's plan entry now, so a test counting PostgreSQL requests does not count that fill. */
export async function planCached(deps: Deps, organizationId: string): Promise<void> {
  await fillPlanLimits(deps, organizationId, 'test-plan-fill');
}
