// Tells which deliveries a request's own transaction wrote or retried, in that transaction's round trip, so they can be sent after the answer.
import type { CallOptions, Db, Statement } from './db.ts';

export interface NewDelivery {
  deliveryId: string;
  organizationId: string;
}

// Every audit row the app writes goes through lib/pg/audit.ts, whose statements all say this.
const WRITES_AUDIT = /INSERT INTO audit_events\b/i;
/** The audit rows of this transaction are among the ids minted this long before the statement was sent, at most. */
const AUDIT_ID_WINDOW_MS = 60_000;
/** What one isolate keeps for its next answer; anything past it waits for the scheduled function instead. */
const MAX_KEPT = 1_000;

/**
 * The deliveries this transaction made due: those the audit trigger (migrations/0028) wrote, and those an admin's retry
 * put back (lib/events/retry-delivery.ts, whose `webhook.delivery_retried` row names the delivery and is written only
 * when the delivery was). Both start from the audit rows this transaction inserted (xmin), found among the last
 * minute's ids (UUIDv7, minted by this process just before: a short range of the primary key, never a scan), then reach
 * the deliveries by their indexes. It runs as the batch's last statement, so it costs no round trip of its own, and it
 * sees exactly what commits with the change, nothing of another request's.
 */
function probe(nowMs: number): Statement {
  return {
    text: `WITH mine AS MATERIALIZED (
             SELECT a.id, a.action, a.organization_id, a.details FROM audit_events a
              WHERE a.id >= $1::uuid AND a.xmin = pg_current_xact_id()::xid
           )
           SELECT d.id, d.organization_id
             FROM mine a
             JOIN webhook_events e ON e.audit_event_id = a.id
             JOIN webhook_endpoint_deliveries d ON d.event_id = e.id
            WHERE d.state = 'pending'
           UNION ALL
           SELECT d.id, d.organization_id
             FROM mine a
             JOIN webhook_endpoint_deliveries d
               -- CASE: the cast runs only on a retry's row, whatever order the planner picks.
               ON d.id = CASE WHEN a.action = 'webhook.delivery_retried' THEN (a.details->>'deliveryId')::uuid END
              AND d.organization_id = a.organization_id
            WHERE d.state = 'pending'`,
    params: [uuidFloor(nowMs - AUDIT_ID_WINDOW_MS)],
  };
}

/** The smallest UUIDv7 of that millisecond. */
function uuidFloor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

const kept = new WeakMap<Db, NewDelivery[]>();

/**
 * Wraps a Db so that a statement or batch that writes an audit row carries the probe as its batch's last statement (a
 * lone query becomes a batch of two: the same one round trip) and keeps what it found. Nothing else changes: the caller
 * gets its own rows, and a batch that fails finds nothing.
 */
export function trackNewDeliveries(db: Db): Db {
  const found: NewDelivery[] = [];
  const keep = (rows: Record<string, unknown>[] | undefined) => {
    for (const row of rows ?? []) {
      if (found.length >= MAX_KEPT) return;
      if (typeof row.id === 'string' && typeof row.organization_id === 'string') {
        found.push({ deliveryId: row.id, organizationId: row.organization_id });
      }
    }
  };
  const tracked: Db = {
    async query<T = Record<string, unknown>>(text: string, params: unknown[] = [], options: CallOptions = {}): Promise<T[]> {
      if (!WRITES_AUDIT.test(text)) return db.query<T>(text, params, options);
      const [rows, probed] = await db.transaction([{ text, params }, probe(Date.now())], options);
      keep(probed);
      return (rows ?? []) as T[];
    },
    async transaction(statements: Statement[], options: CallOptions = {}): Promise<Record<string, unknown>[][]> {
      if (!statements.some((statement) => WRITES_AUDIT.test(statement.text))) return db.transaction(statements, options);
      const results = await db.transaction([...statements, probe(Date.now())], options);
      keep(results.pop());
      return results;
    },
  };
  kept.set(tracked, found);
  return tracked;
}

/** What the Db's transactions wrote since the last call, and forgets it; nothing for a Db not built by trackNewDeliveries. */
export function takeNewDeliveries(db: Db): NewDelivery[] {
  const found = kept.get(db);
  if (found === undefined || found.length === 0) return [];
  return found.splice(0, found.length);
}
