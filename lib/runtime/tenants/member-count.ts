// tenants.memberCount: how many people hold a role in the organisation, or can act at one Outlet (a role there or
// organisation-wide), read through the cache for 60 s (registry row orgMemberCountCache).
import type { Deps } from '../../deps.ts';
import { memberCountSchema, type MemberCount } from '../../keys/index.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { MEMBER_COUNT_TTL_SECONDS, readThrough } from '../cache/index.ts';

export async function readMemberCount(
  deps: Deps,
  input: { organizationId: string; locationId: string | null; authorized: Promise<unknown>; correlationId: string },
): Promise<MemberCount> {
  const { value } = await readThrough(deps, {
    name: 'member-count',
    entry: { organizationId: input.organizationId, resource: 'member-count', locationId: input.locationId },
    schema: memberCountSchema,
    ttlSeconds: MEMBER_COUNT_TTL_SECONDS,
    gate: input.authorized,
    correlationId: input.correlationId,
    source: async () => {
      const rows = await dbCall('read', 'tenants.memberCount', (signal) =>
        deps.db.query<{ count: number }>(
          `SELECT count(DISTINCT user_id)::int AS count FROM role_assignments
            WHERE organization_id = $1 AND ($2::uuid IS NULL OR location_id IS NULL OR location_id = $2::uuid)`,
          [input.organizationId, input.locationId],
          { signal },
        ),
      );
      return { organizationId: input.organizationId, locationId: input.locationId, count: rows[0]?.count ?? 0 };
    },
  });
  // The source always answers a count; undefined only if it did not, which a schema-checked row cannot.
  return value ?? { organizationId: input.organizationId, locationId: input.locationId, count: 0 };
}
