// What GET /healthz answers: the isolate's last health check while it is less than a second old, else a new one (one
// at a time per isolate: a burst shares it). /healthz is public, so each call must not cost the stores five commands.
import type { Deps } from '../deps.ts';
import type { SingleFlight } from '../single-flight.ts';
import { checkHealth, type Health } from './health.ts';

/** How old a result may be when it is answered, counted from the start of the check that produced it. */
export const HEALTH_MAX_AGE_MS = 1_000;

/** Per isolate: keyed by the isolate's SingleFlight (one per Worker isolate, Lambda container or Node process). */
const results = new WeakMap<SingleFlight, { startedMs: number; health: Health }>();

/**
 * A failure that starts at time T is in every answer from T + 1 s on: a result is answered only while its check
 * started less than HEALTH_MAX_AGE_MS ago, so any check that could have missed the failure started before T.
 */
export async function currentHealth(deps: Deps): Promise<Health> {
  const kept = results.get(deps.inflight);
  if (kept !== undefined && deps.clock.now() - kept.startedMs < HEALTH_MAX_AGE_MS) return kept.health;
  return deps.inflight.run('health.check', async () => {
    const startedMs = deps.clock.now();
    const health = await checkHealth(deps);
    results.set(deps.inflight, { startedMs, health });
    return health;
  });
}
