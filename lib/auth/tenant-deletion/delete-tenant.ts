// tenants.delete: an operator deletes an organisation for good. One statement ends everything PostgreSQL holds of it
// (state, slug, domains, sessions, exports, Syrve connections, the audit row); then, side by side and best effort, what
// Redis holds: the denylist entries, the invites, the caches, the contexts (docs/design/tenants.md#deletion).
import type { Deps } from '../../deps.ts';
import { computedAuditInsert } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { invites } from '../../runtime/invites/index.ts';
import { jobs } from '../../runtime/jobs/index.ts';
import { parseRevocationSeq, revocationSeqAfter, revokeSessions } from '../../runtime/revocation/index.ts';
import { syrve } from '../../runtime/syrve/index.ts';
import { invalidateTenant } from '../../runtime/tenants/invalidate-tenant.ts';
import { activeContext } from '../context/index.ts';

/** Users whose contexts pointing here are dropped at once; beyond it (and for other sessions) contexts end by their TTL. */
const DELETE_CONTEXT_DROP_MAX_USERS = 1_000;
const CONTEXT_WAVE = 25;

export interface DeleteTenantInput {
  organizationId: string;
  operatorId: string;
  /** Kept in the `tenant.deleted` audit row only. */
  reason: string;
  correlationId: string;
}

export interface DeletionEnded {
  sessions: number;
  invites: number;
  exports: number;
  syrveConnections: number;
}

export type DeleteTenantOutcome =
  | {
      ok: true;
      previousState: 'active' | 'suspended' | 'deleted';
      ended: DeletionEnded;
      /** Revoked sessions whose denylist entry did not land: the denylist repair writes them from PostgreSQL. */
      denylistPending: number;
    }
  | { ok: false; reason: 'not-found' };

interface Row {
  previous_state: 'active' | 'suspended' | 'deleted';
  slug: string;
  domains: string[];
  session_ids: string[];
  user_ids: string[];
  export_ids: string[];
  connection_ids: string[];
  base_urls: string[];
  revocation_seq: unknown;
}

/**
 * The organisation's row is taken FOR UPDATE (as a suspension takes it), so a suspension or a role change racing the
 * delete runs before or after it, never across it. Everything below depends on `org`, the row this statement moved to
 * `deleted`: a repeat (already deleted) changes nothing and writes no audit row.
 *
 * - the slug becomes the one PostgreSQL derives from the id (`o-<hex>`, which no admin may choose: isChoosableSlug),
 *   so the old one is free; its verified domains and pending claims are deleted, so another organisation may claim them;
 * - every live session opened in it is revoked (as a member's removal revokes theirs), so its refresh tokens die;
 * - its unfinished exports are cancelled (as jobs_cancel does: a run's next batch is refused) and their parts deleted;
 * - its Syrve connections are disabled.
 */
export async function deleteTenant(deps: Deps, input: DeleteTenantInput): Promise<DeleteTenantOutcome> {
  const nowMs = deps.clock.now();
  const now = new Date(nowMs);
  const audit = computedAuditInsert(
    {
      action: 'tenant.deleted',
      // Operators are not users of any tenant: the row names them by their configured id.
      actorUserId: null,
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.organizationId,
      correlationId: input.correlationId,
      details: { operatorId: input.operatorId, reason: input.reason },
    },
    now,
    {
      computed: {
        previousState: 'SELECT state FROM old',
        releasedSlug: 'SELECT slug FROM old',
        domainCount: 'SELECT count(*) FROM domains',
        revokedCount: 'SELECT count(*) FROM ended',
        exportCount: 'SELECT count(*) FROM exports',
        connectionCount: 'SELECT count(*) FROM connections',
      },
      when: 'EXISTS (SELECT 1 FROM org)',
    },
    3,
  );
  const rows = await dbCall('commit', 'tenants.delete', (signal) =>
    deps.db.query<Row>(
      `WITH old AS MATERIALIZED (
         SELECT id, state, slug FROM organizations WHERE id = $1::uuid FOR UPDATE
       ), org AS (
         UPDATE organizations o
            SET state = 'deleted', slug = 'o-' || replace(o.id::text, '-', ''), suspension_reason = NULL,
                suspended_at = NULL, updated_at = $2
           FROM old WHERE o.id = old.id AND old.state <> 'deleted'
         RETURNING o.id
       ), domains AS (
         DELETE FROM organization_domains d USING org WHERE d.organization_id = org.id RETURNING d.domain
       ), claims AS (
         DELETE FROM organization_domain_claims c USING org WHERE c.organization_id = org.id RETURNING c.domain
       ), ended AS (
         UPDATE sessions s SET revoked_at = $2
           FROM org
          WHERE s.organization_id = org.id AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > $2)
         RETURNING s.id, s.user_id
       ), exports AS (
         UPDATE jobs j SET state = 'cancelled', finished_at = $2, claim_id = NULL, lease_until = NULL, updated_at = $2
           FROM org WHERE j.organization_id = org.id AND j.state IN ('queued', 'running')
         RETURNING j.id
       ), files AS (
         DELETE FROM job_files f USING exports e WHERE f.job_id = e.id
       ), connections AS (
         UPDATE syrve_connections c SET enabled = false, updated_at = $2
           FROM org WHERE c.organization_id = org.id
         RETURNING c.id, c.base_url
       ), audit AS (${audit.text})
       SELECT old.state AS previous_state, old.slug,
              COALESCE((SELECT array_agg(domain) FROM domains), '{}'::text[]) AS domains,
              COALESCE((SELECT array_agg(id::text) FROM ended), '{}'::text[]) AS session_ids,
              COALESCE((SELECT array_agg(DISTINCT user_id::text) FROM ended), '{}'::text[]) AS user_ids,
              COALESCE((SELECT array_agg(id::text) FROM exports), '{}'::text[]) AS export_ids,
              COALESCE((SELECT array_agg(id::text ORDER BY id) FROM connections), '{}'::text[]) AS connection_ids,
              COALESCE((SELECT array_agg(base_url ORDER BY id) FROM connections), '{}'::text[]) AS base_urls,
              ${revocationSeqAfter(['ended'])} AS revocation_seq
         FROM old`,
      [input.organizationId, now.toISOString(), ...audit.params],
      { signal },
    ),
  );
  const row = rows[0];
  if (row === undefined) return { ok: false, reason: 'not-found' };
  const { organizationId, correlationId } = input;
  const [denylist, cancelledInvites] = await Promise.all([
    revokeSessions(deps.revocation, deps.keys, deps.logger, {
      organizationId,
      sessionIds: row.session_ids,
      tokenExpiresAt: 0,
      sessionCoverSeconds: deps.config.accessTokenMaxLifetimeSeconds,
      nowMs,
      correlationId,
      revocationSeq: parseRevocationSeq(row.revocation_seq),
    }),
    // Also on a repeat: invites a first attempt could not cancel are cancelled now.
    invites.cancelAll(deps, { organizationId, correlationId }),
    // The old slug and domains leave the resolve cache, and every cached entry of the organisation (settings, member
    // counts, the plan) is forgotten by the generation bump.
    invalidateTenant(deps, {
      organizationId,
      slugs: [row.slug, derivedSlug(organizationId)],
      domains: row.domains,
      correlationId,
    }),
    Promise.all(row.export_ids.map((jobId) => jobs.deleteJobCache(deps, { organizationId, jobId }))),
    Promise.all(
      row.connection_ids.map((connectionId, index) =>
        syrve.resetSession(deps, { organizationId, connectionId, baseUrl: row.base_urls[index] ?? '' }).catch(() => {
          // The cached session ends by its TTL; the connection is disabled in PostgreSQL, so nothing uses it meanwhile.
          deps.logger.warn('syrve_reset_failed', { organizationId, correlationId });
        }),
      ),
    ),
    dropContexts(deps, { organizationId, userIds: row.user_ids, correlationId }),
  ]);
  return {
    ok: true,
    previousState: row.previous_state,
    ended: {
      sessions: row.session_ids.length,
      invites: cancelledInvites.cancelled,
      exports: row.export_ids.length,
      syrveConnections: row.connection_ids.length,
    },
    denylistPending: denylist.notLanded.length,
  };
}

function derivedSlug(organizationId: string): string {
  return `o-${organizationId.replaceAll('-', '')}`;
}

/** The contexts of the revoked sessions' users that point here, in waves; best effort (each drop logs its own WARN). */
async function dropContexts(
  deps: Deps,
  input: { organizationId: string; userIds: readonly string[]; correlationId: string },
): Promise<void> {
  const userIds = input.userIds.slice(0, DELETE_CONTEXT_DROP_MAX_USERS);
  for (let start = 0; start < userIds.length; start += CONTEXT_WAVE) {
    await Promise.allSettled(
      userIds
        .slice(start, start + CONTEXT_WAVE)
        .map((userId) =>
          activeContext.dropForOrganization(deps, { userId, organizationId: input.organizationId, correlationId: input.correlationId }),
        ),
    );
  }
}
