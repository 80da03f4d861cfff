// Which organisations can hold invite state in Redis: the scheduled tasks' registry of them, read from the audit trail, never from the keyspace.
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';

/**
 * Organisations with an `invite.created` audit row since `since`, ordered by id, after `after`, at most `limit`.
 * Every invite object, index and receipt in Redis comes from a create that wrote this row (or was taken back), and
 * none outlives its create by more than the invite TTL plus the receipt TTL, so a window that long finds every
 * organisation that can still hold one. A create whose audit write failed and whose take-back failed too leaves an
 * orphan nobody holds a token for; no one finds it, and it expires with its TTL.
 *
 * Cost: audit row ids are UUIDv7 (lib/pg/audit.ts), so the time-ordered primary key bounds the read to the rows
 * written since `since` — the recent trail, whatever its history, and nothing of the Redis keyspace. No index of
 * its own is needed; `occurred_at` repeats the window for rows whose id clock and app clock differ.
 */
export async function organizationsWithInvitesSince(
  deps: Deps,
  query: { since: Date; after: string | null; limit: number },
): Promise<string[]> {
  const rows = await dbCall('read', 'invites.organizations', (signal) =>
    deps.db.query<{ organization_id: string }>(
      `SELECT DISTINCT organization_id FROM audit_events
        WHERE id >= $1::uuid AND occurred_at >= $2 AND action = 'invite.created' AND organization_id IS NOT NULL
          AND ($3::uuid IS NULL OR organization_id > $3::uuid)
        ORDER BY organization_id LIMIT $4`,
      [firstUuidv7At(query.since.getTime()), query.since.toISOString(), query.after, query.limit],
      { signal },
    ),
  );
  return rows.map((row) => row.organization_id);
}

/** The lowest UUID whose first 48 bits are this unix millisecond: every UUIDv7 made at or after it sorts above it. */
export function firstUuidv7At(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}
