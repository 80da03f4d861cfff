// `RUNSTATE_REPLICA_LAG_MS`: npm start's main store answers reads from a replica that many milliseconds behind, as an
// Upstash Global database's read region does (docs/design/replicas.md).
import * as z from 'zod';

// Upstash's read regions lag by milliseconds to about a second; ten seconds is room to exaggerate, not a model.
const lagSchema = z.coerce.number().int().min(0).max(10_000);

/** 0 (no replica) when unset or empty; an error naming the variable when it is not a whole number of ms in range. */
export function replicaLagMs(env: Record<string, string | undefined>): number {
  const raw = env.RUNSTATE_REPLICA_LAG_MS;
  if (raw === undefined || raw === '') return 0;
  const parsed = lagSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`RUNSTATE_REPLICA_LAG_MS must be a whole number of milliseconds from 0 to 10000, got "${raw}"`);
  return parsed.data;
}
