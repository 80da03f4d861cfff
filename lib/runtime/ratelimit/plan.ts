// An organisation's plan limits, from PostgreSQL into its read-through cache entry, where the count script reads them.
import type { Deps } from '../../deps.ts';
import { PLAN_LIMITS_TTL_SECONDS, planLimitsSchema, type PlanLimits } from '../../keys/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { readThrough } from '../cache/index.ts';

interface PlanRow {
  id: string;
  user_route_per_minute: number | null;
  user_per_minute: number | null;
  tenant_per_minute: number | null;
}

/**
 * Fills the entry (a read, then the source and one SET on a miss). After a count found it missing, the limiter has
 * already read the plan (`loaded`), so the fill asks PostgreSQL nothing more and runs off the request's path. An
 * organisation without a plan row is cached too (all null: the defaults), so it is read once per TTL; an organisation
 * that does not exist is not cached.
 */
export async function fillPlanLimits(
  deps: Deps,
  organizationId: string,
  correlationId: string,
  loaded?: PlanLimits,
): Promise<PlanLimits | undefined> {
  const { value } = await readThrough(deps, {
    name: 'plan-limits',
    entry: { organizationId, resource: 'rate-limits' },
    schema: planLimitsSchema,
    ttlSeconds: PLAN_LIMITS_TTL_SECONDS,
    correlationId,
    source: () => (loaded !== undefined ? Promise.resolve(loaded) : loadPlan(deps, organizationId)),
  });
  return value;
}

/** The plan's row, one statement; undefined when the organisation does not exist. */
export async function loadPlan(deps: Deps, organizationId: string): Promise<PlanLimits | undefined> {
  const rows = await dbCall('read', 'ratelimit.plan', (signal) =>
    deps.db.query<PlanRow>(
      `SELECT o.id, r.user_route_per_minute, r.user_per_minute, r.tenant_per_minute
         FROM organizations o LEFT JOIN organization_rate_limits r ON r.organization_id = o.id
        WHERE o.id = $1`,
      [organizationId],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return { organizationId: row.id, userRoute: row.user_route_per_minute, user: row.user_per_minute, tenant: row.tenant_per_minute };
}
