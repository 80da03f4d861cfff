// invites.history: the organisation's invite audit events from PostgreSQL, newest first, one keyset page at a time.
import type { Deps } from '../../deps.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { decodeHistoryCursor, encodeHistoryCursor } from './history-cursor.ts';
import { CANCEL_REASONS, type CancelReason } from './outcome.ts';

/** One audit row of an invite, as the history shows it: ids and times only (audit rows carry no token or email). */
export interface InviteHistoryEvent {
  id: string;
  action: string;
  actorUserId: string | null;
  /** Who did it: a person, the organisation's API key (then actorUserId is null), or no one. */
  actor: { type: 'user'; userId: string } | { type: 'api_key'; apiKeyId: string } | null;
  /**
   * The person's email while they hold a role in this organisation and the caller may list its members (withEmails);
   * null otherwise: a removed member, a user of another organisation only, a key or no one.
   */
  actorEmail: string | null;
  inviteId: string | null;
  outletId: string | null;
  occurredAt: string;
  correlationId: string;
  /** Why an `invite.cancelled` no admin asked for happened (recordCancellation's reason); null for every other row. */
  reason: CancelReason | null;
}

export type InviteHistoryPage = { ok: true; events: InviteHistoryEvent[]; nextCursor: string | null } | { ok: false; reason: 'bad-cursor' };

interface HistoryRow {
  id: string;
  /** To the microsecond, for the cursor. */
  at_exact: string;
  /** To the millisecond, for the answer (the API's other times have milliseconds). */
  at: string;
  action: string;
  actor_user_id: string | null;
  actor_api_key_id: string | null;
  actor_email: string | null;
  target_id: string | null;
  location_id: string | null;
  correlation_id: string;
  reason: string | null;
}

const AT = (format: string) => `to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.${format}"Z"')`;

/**
 * A page of `limit` events older than the cursor's. Keyset order (occurred_at DESC, id DESC): an event written after a
 * page was read is newer than its cursor, so it never appears in or shifts a later page. The predicate
 * `action LIKE 'invite.%'` is written as the partial index's is (migrations/0011), so the planner can use it.
 */
export async function readInviteHistory(
  deps: Deps,
  request: { organizationId: string; limit: number; cursor?: string; withEmails: boolean },
): Promise<InviteHistoryPage> {
  const params: unknown[] = [request.organizationId, request.limit + 1, request.withEmails];
  let before = '';
  if (request.cursor !== undefined) {
    const position = decodeHistoryCursor(request.cursor);
    if (position === undefined) return { ok: false, reason: 'bad-cursor' };
    before = 'AND (occurred_at, id) < ($4::timestamptz, $5::uuid)';
    params.push(position.at, position.id);
  }
  const rows = await dbCall('read', 'invites.history', (signal) =>
    deps.db.query<HistoryRow>(
      // The email only of a person who holds a role here now: a member of another organisation only, or one removed
      // since, stays unnamed, so the history never tells one organisation who belongs to another.
      `SELECT id, ${AT('US')} AS at_exact, ${AT('MS')} AS at, action, actor_user_id, actor_api_key_id, target_id, location_id, correlation_id,
              details->>'reason' AS reason,
              CASE WHEN $3::boolean AND actor_api_key_id IS NULL THEN
                (SELECT u.email FROM users u
                  WHERE u.id = audit_events.actor_user_id
                    AND EXISTS (SELECT 1 FROM role_assignments r
                                 WHERE r.user_id = audit_events.actor_user_id AND r.organization_id = $1))
              END AS actor_email
         FROM audit_events
        WHERE organization_id = $1 AND action LIKE 'invite.%' ${before}
        ORDER BY occurred_at DESC, id DESC
        LIMIT $2`,
      params,
      { signal },
    ),
  );
  const page = rows.slice(0, request.limit);
  const last = page.at(-1);
  return {
    ok: true,
    events: page.map((row) => ({
      id: row.id,
      action: row.action,
      actorUserId: row.actor_user_id,
      actor: actorOf(row),
      actorEmail: row.actor_email,
      inviteId: row.target_id,
      outletId: row.location_id,
      occurredAt: row.at,
      correlationId: row.correlation_id,
      reason: CANCEL_REASONS.find((known) => known === row.reason) ?? null,
    })),
    nextCursor: rows.length > request.limit && last !== undefined ? encodeHistoryCursor({ at: last.at_exact, id: last.id }) : null,
  };
}

function actorOf(row: HistoryRow): InviteHistoryEvent['actor'] {
  if (row.actor_api_key_id !== null) return { type: 'api_key', apiKeyId: row.actor_api_key_id };
  return row.actor_user_id === null ? null : { type: 'user', userId: row.actor_user_id };
}
