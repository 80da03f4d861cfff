// The counters an operator looks at or lifts: a tenant's, or a user's (in one organisation or on its own routes).
import type { Deps } from '../../deps.ts';
import { counterWindows, type CounterWindows, type RateLimitTarget } from './counters.ts';
import type { RateLimitKind } from './limits.ts';

export type BlockSubject =
  | { kind: 'tenant'; organizationId: string }
  /** `organizationId` absent: the user's counters of routes without an organisation; `route` adds that route's counter. */
  | { kind: 'user'; userId: string; organizationId?: string; route?: string };

export interface SubjectCounters {
  windows: CounterWindows;
  /** The limits looked at, each with its current, previous and next window's key. */
  limits: Array<{ kind: RateLimitKind; currentKey: string; previousKey: string; nextKey: string }>;
}

/** The same keys the count script uses (counterWindows), so what is shown and lifted is what the limiter counts. */
export async function subjectCounters(deps: Deps, subject: BlockSubject, nowMs: number): Promise<SubjectCounters> {
  const target: RateLimitTarget =
    subject.kind === 'tenant'
      ? { userId: subject.organizationId, route: '', organizationId: subject.organizationId }
      : { userId: subject.userId, route: subject.route ?? '', organizationId: subject.organizationId };
  const windows = await counterWindows(deps, target, nowMs);
  const wanted: RateLimitKind[] = subject.kind === 'tenant' ? ['tenant'] : subject.route !== undefined ? ['user', 'user-route'] : ['user'];
  const limits = windows.kinds.flatMap((kind, i) =>
    wanted.includes(kind)
      ? [{ kind, currentKey: windows.keys[3 * i]!, previousKey: windows.keys[3 * i + 1]!, nextKey: windows.keys[3 * i + 2]! }]
      : [],
  );
  return { windows, limits };
}
