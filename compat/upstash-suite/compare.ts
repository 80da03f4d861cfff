// Compares the reference pass with ours: every test that passes on the plain REST front must pass through our proxy.
import type { TestOutcome } from './junit.ts';

export interface PassCounts {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
}

export interface Comparison {
  reference: PassCounts;
  ours: PassCounts;
  /** Passed on the reference, failed (or never ran) through ours: must be empty. */
  missedByOurs: Array<{ id: string; reason: string }>;
  /** Failed on both: informational (features Redis or the plain front lack). */
  failingOnBoth: Array<{ id: string; reason: string }>;
  /** Passed through ours only: informational (features the plain front lacks). */
  passingOnlyOnOurs: string[];
}

export function compareRuns(reference: TestOutcome[], ours: TestOutcome[]): Comparison {
  const oursById = new Map(ours.map((outcome) => [outcome.id, outcome]));
  const referenceById = new Map(reference.map((outcome) => [outcome.id, outcome]));
  const missedByOurs: Comparison['missedByOurs'] = [];
  const failingOnBoth: Comparison['failingOnBoth'] = [];
  for (const outcome of reference) {
    const mine = oursById.get(outcome.id);
    if (outcome.status === 'passed' && mine?.status !== 'passed') {
      missedByOurs.push({ id: outcome.id, reason: mine?.reason ?? (mine === undefined ? 'did not run' : mine.status) });
    }
    if (outcome.status === 'failed' && mine?.status === 'failed') {
      failingOnBoth.push({ id: outcome.id, reason: mine.reason ?? outcome.reason ?? 'failed' });
    }
  }
  const passingOnlyOnOurs = ours
    .filter((outcome) => outcome.status === 'passed' && referenceById.get(outcome.id)?.status !== 'passed')
    .map((outcome) => outcome.id);
  return { reference: countsOf(reference), ours: countsOf(ours), missedByOurs, failingOnBoth, passingOnlyOnOurs };
}

function countsOf(outcomes: TestOutcome[]): PassCounts {
  const count = (status: TestOutcome['status']): number => outcomes.filter((outcome) => outcome.status === status).length;
  return { total: outcomes.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
}

/**
 * Groups failures by cause: an unknown command names the command (or its module), anything else falls back to the
 * test file, so a long list reads as a handful of reasons.
 */
export function groupByCause(failures: Array<{ id: string; reason: string }>): Array<{ cause: string; count: number; example: string }> {
  const groups = new Map<string, { count: number; example: string }>();
  for (const failure of failures) {
    const unknown = /unknown command '([^']+)'/i.exec(failure.reason)?.[1]?.toUpperCase();
    // Module commands (JSON.SET, SEARCH.QUERY) group by module: one missing module is one cause.
    const command = unknown?.includes('.') === true ? `${unknown.split('.')[0]}.*` : unknown;
    const cause = command !== undefined ? `unknown command ${command}` : (failure.id.split(':')[0] ?? failure.id);
    const group = groups.get(cause) ?? { count: 0, example: failure.reason };
    group.count += 1;
    groups.set(cause, group);
  }
  return [...groups.entries()]
    .map(([cause, group]) => ({ cause, ...group }))
    .sort((a, b) => b.count - a.count || a.cause.localeCompare(b.cause));
}

export function formatComparison(comparison: Comparison): string {
  const { reference, ours } = comparison;
  const line = (label: string, counts: PassCounts): string =>
    `${label.padEnd(16)} ${counts.total} tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
  const out = [line('reference front', reference), line('our proxy', ours), ''];
  out.push(`Passed on the reference but not through our proxy: ${comparison.missedByOurs.length}`);
  for (const miss of comparison.missedByOurs) out.push(`  ✗ ${miss.id}\n      ${miss.reason}`);
  out.push('', `Failing on both (informational): ${comparison.failingOnBoth.length}`);
  for (const group of groupByCause(comparison.failingOnBoth))
    out.push(`  ${String(group.count).padStart(4)}  ${group.cause}  — e.g. ${group.example}`);
  out.push('', `Passing only through our proxy (informational): ${comparison.passingOnlyOnOurs.length}`);
  for (const id of comparison.passingOnlyOnOurs) out.push(`  ✓ ${id}`);
  return out.join('\n');
}
