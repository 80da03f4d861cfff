// The PostgreSQL side of "how far has the denylist come": the revocation clock (migrations/0024), read by each isolate
// at most once a second beside its checks, never in sequence with one, and kept as the point the revocation store must
// have reached by now (docs/design/revocation.md#a-denylist-that-knows-how-far-it-has-come).
import { errorKind } from '../../log/logger.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';

/** One read of the clock per isolate in this time at most. */
export const CLOCK_READ_EVERY_MS = 1_000;
/**
 * How long a committed revocation may be missing from the revocation store before the check calls the store behind: its
 * own denylist write (after the commit) and a read replica's lag (150 ms in the `lag` test project) fit well inside.
 */
export const REPLICATION_GRACE_MS = 500;

interface Mark {
  seq: number;
  /** When the clock reached `seq`, on this isolate's clock: the reply's arrival less the age PostgreSQL reported. */
  committedAtMs: number;
}

interface ClockView {
  /** Ascending by seq; marks committed more than the grace ago are folded into the first. */
  marks: Mark[];
  lastReadStartedMs: number;
  reading: Promise<void> | undefined;
  /** False until a read answered: a new isolate waits for its first (beside the store's read). */
  known: boolean;
}

const views = new WeakMap<Deps, ClockView>();

/**
 * The clock value every revocation up to which committed more than the grace ago: the denylist's point must be at least
 * this, or the store is behind. Undefined while this isolate has never read the clock (PostgreSQL did not answer): the
 * check then answers from the store's own state, as it did before the clock. Starts a read when the last one is a
 * second old; waits for it only when the isolate has none yet.
 */
export async function requiredPoint(deps: Deps, defer?: (work: Promise<unknown>) => void): Promise<number | undefined> {
  let view = views.get(deps);
  if (view === undefined) {
    view = { marks: [], lastReadStartedMs: Number.NEGATIVE_INFINITY, reading: undefined, known: false };
    views.set(deps, view);
  }
  const startedMs = deps.clock.now();
  if (view.reading === undefined && startedMs - view.lastReadStartedMs >= CLOCK_READ_EVERY_MS) {
    view.lastReadStartedMs = startedMs;
    const current = view;
    current.reading = readClock(deps, current).finally(() => {
      current.reading = undefined;
    });
    // Kept alive past the answer where the runtime allows (Workers' waitUntil): a warm check does not wait for it.
    defer?.(current.reading);
  }
  if (!view.known && view.reading !== undefined) await view.reading;
  return settled(view, deps.clock.now());
}

function settled(view: ClockView, nowMs: number): number | undefined {
  if (!view.known) return undefined;
  let point = 0;
  let firstUnsettled = view.marks.length;
  for (const [index, mark] of view.marks.entries()) {
    if (mark.committedAtMs > nowMs - REPLICATION_GRACE_MS) {
      firstUnsettled = index;
      break;
    }
    point = mark.seq;
  }
  // Keep the highest settled mark and every one still inside the grace.
  if (firstUnsettled > 1) view.marks.splice(0, firstUnsettled - 1);
  return point;
}

/** The clock's value and how long ago it was taken (milliseconds, by PostgreSQL's own clock). One primary-key read. */
export async function readRevocationClock(deps: Deps): Promise<{ seq: number; ageMs: number }> {
  const rows = await dbCall('read', 'revocation.clock', (signal) =>
    deps.db.query<{ seq: string | number; age_ms: string | number }>(
      `SELECT seq, greatest(0, extract(epoch FROM clock_timestamp() - advanced_at) * 1000) AS age_ms FROM revocation_clock`,
      [],
      { signal },
    ),
  );
  const seq = Number(rows[0]?.seq);
  const ageMs = Number(rows[0]?.age_ms);
  if (!Number.isSafeInteger(seq) || !Number.isFinite(ageMs)) throw new Error('revocation clock: unreadable row');
  return { seq, ageMs };
}

async function readClock(deps: Deps, view: ClockView): Promise<void> {
  try {
    const { seq, ageMs } = await readRevocationClock(deps);
    const mark = { seq, committedAtMs: deps.clock.now() - ageMs };
    const last = view.marks.at(-1);
    if (last === undefined || seq > last.seq) view.marks.push(mark);
    view.known = true;
  } catch (error) {
    // The last value read stays in use, and the next request a second on tries again.
    deps.logger.warn('revocation_clock_unread', { errorKind: errorKind(error) });
  }
}
