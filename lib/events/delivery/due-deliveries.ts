// The due deliveries of the next organisations after a cursor, at most a few per organisation: one tenant's backlog waits its turn.
import * as z from 'zod';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { DeliveryRef } from './deliver.ts';

const dueRowSchema = z.object({ id: z.uuid(), organization_id: z.uuid() });

export interface DuePage {
  refs: DeliveryRef[];
  /** The last organisation in the page; undefined when the page had none. */
  lastOrganizationId: string | undefined;
  /** True when fewer organisations than asked had due deliveries: the end of the list was reached. */
  end: boolean;
}

/**
 * One statement. The organisations are found by a loose index scan of webhook_deliveries_due_idx (organization_id,
 * next_attempt_at, pending only; migrations/0028): one index probe per organisation, whatever its backlog, then each
 * one's oldest due deliveries, at most `perOrganization`. `after` (exclusive) and `upTo` (inclusive) bound the
 * organisation ids, so a run that wraps round stops where it began.
 */
export async function dueDeliveries(
  deps: Deps,
  bounds: { after: string | null; upTo: string | null; organizations: number; perOrganization: number },
): Promise<DuePage> {
  const now = new Date(deps.clock.now()).toISOString();
  const rows = await dbCall('read', 'webhook.delivery.due', (signal) =>
    deps.db.query(
      `WITH RECURSIVE orgs(organization_id, n) AS (
         (SELECT organization_id, 1 FROM webhook_endpoint_deliveries
           WHERE state = 'pending' AND next_attempt_at <= $1::timestamptz
             AND ($2::uuid IS NULL OR organization_id > $2::uuid) AND ($3::uuid IS NULL OR organization_id <= $3::uuid)
           ORDER BY organization_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.organization_id FROM webhook_endpoint_deliveries d
                  WHERE d.state = 'pending' AND d.next_attempt_at <= $1::timestamptz AND d.organization_id > orgs.organization_id
                    AND ($3::uuid IS NULL OR d.organization_id <= $3::uuid)
                  ORDER BY d.organization_id LIMIT 1), orgs.n + 1
           FROM orgs WHERE orgs.organization_id IS NOT NULL AND orgs.n < $4::int
       )
       SELECT d.id, d.organization_id
         FROM orgs
         CROSS JOIN LATERAL (
           SELECT id, organization_id FROM webhook_endpoint_deliveries
            WHERE organization_id = orgs.organization_id AND state = 'pending' AND next_attempt_at <= $1::timestamptz
            ORDER BY next_attempt_at, id LIMIT $5::int) d
        WHERE orgs.organization_id IS NOT NULL
        ORDER BY d.organization_id, d.id`,
      [now, bounds.after, bounds.upTo, bounds.organizations, bounds.perOrganization],
      { signal },
    ),
  );
  const refs = rows.map((row) => {
    const parsed = dueRowSchema.parse(row);
    return { deliveryId: parsed.id, organizationId: parsed.organization_id };
  });
  const organizations = new Set(refs.map((ref) => ref.organizationId));
  return { refs, lastOrganizationId: refs.at(-1)?.organizationId, end: organizations.size < bounds.organizations };
}
