// invites.cancelAll: when an organisation is deleted, every active invite of it is cancelled through the one cancel
// path (lib/runtime/invites/cancel-invite.ts), so Redis and PostgreSQL end as an admin's cancel leaves them.
import type { Deps } from '../../deps.ts';
import { cancelInvite } from './cancel-invite.ts';
import { listInvites } from './list-invites.ts';

/**
 * Who cancelled, in the outcome row and its `invite.cancelled` audit row: no user did (an operator deleted the
 * organisation; the `tenant.deleted` row names them), so the nil uuid stands for "the platform".
 */
const PLATFORM_ACTOR_ID = '00000000-0000-0000-0000-000000000000';

/** Cancels running at once: the index holds at most INVITE_MAX_ACTIVE_PER_ORG (1 000), so at most 100 waves. */
const CONCURRENCY = 10;
const PAGE = 500;

export interface CancelAllOutcome {
  cancelled: number;
  /** Invites whose cancel failed (a store error): still active until a repeat of the delete or their TTL (3 h). */
  failed: number;
}

/** Never throws: a failure is counted and logged once (a WARN naming the organisation), and a repeat finishes it. */
export async function cancelOrganizationInvites(
  deps: Deps,
  input: { organizationId: string; correlationId: string },
): Promise<CancelAllOutcome> {
  const inviteIds: string[] = [];
  try {
    let cursor: string | undefined;
    do {
      const page = await listInvites(deps, {
        organizationId: input.organizationId,
        limit: PAGE,
        ...(cursor === undefined ? {} : { cursor }),
      });
      if (!page.ok) break;
      inviteIds.push(...page.invites.map((invite) => invite.inviteId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  } catch {
    deps.logger.warn('organization_invites_cancel_failed', {
      organizationId: input.organizationId,
      correlationId: input.correlationId,
      stage: 'list',
    });
    return { cancelled: 0, failed: 1 };
  }
  let cancelled = 0;
  let failed = 0;
  for (let start = 0; start < inviteIds.length; start += CONCURRENCY) {
    const wave = inviteIds.slice(start, start + CONCURRENCY).map((inviteId) =>
      cancelInvite(deps, {
        organizationId: input.organizationId,
        inviteId,
        actorUserId: PLATFORM_ACTOR_ID,
        correlationId: input.correlationId,
      }),
    );
    for (const result of await Promise.allSettled(wave)) {
      // not-active: accepted or cancelled meanwhile, nothing left to end.
      if (result.status === 'fulfilled') cancelled += result.value.ok ? 1 : 0;
      else failed += 1;
    }
  }
  if (failed > 0) {
    deps.logger.warn('organization_invites_cancel_failed', {
      organizationId: input.organizationId,
      correlationId: input.correlationId,
      stage: 'cancel',
      failedCount: failed,
    });
  }
  return { cancelled, failed };
}
