// Prints bench results: a readable table with the redis.ping baseline beside each operation, or one JSON object keyed by operation.
import type { FigureResult, OperationFigures, OperationResult } from './operation.ts';

export const BASELINE = 'redis.ping';

export function toJson(results: OperationResult[]): Record<string, OperationFigures & { calls: number }> {
  const out: Record<string, OperationFigures & { calls: number }> = {};
  for (const r of results) {
    out[r.name] = {
      redisRoundTrips: round(r.redisRoundTrips, 2),
      revocationRoundTrips: round(r.revocationRoundTrips, 2),
      pgRoundTrips: round(r.pgRoundTrips, 2),
      p50Ms: round(r.p50Ms, 3),
      p99Ms: round(r.p99Ms, 3),
      perSecond: round(r.perSecond, 1),
      calls: r.calls,
    };
  }
  return out;
}

export function formatTable(
  results: OperationResult[],
  notes: { warmup: number; latencyMs: number; descriptions: Map<string, string> },
): string {
  const baseline = results.find((r) => r.name === BASELINE);
  const header = ['operation', 'redis RT', 'revoc. RT', 'pg RT', 'p50 ms', 'p99 ms', 'calls/s', 'p50 ÷ ping'];
  const rows = results.map((r) => [
    r.name,
    r.redisRoundTrips.toFixed(2),
    r.revocationRoundTrips.toFixed(2),
    r.pgRoundTrips.toFixed(2),
    r.p50Ms.toFixed(3),
    r.p99Ms.toFixed(3),
    r.perSecond.toFixed(0),
    baseline === undefined ? '-' : `${(r.p50Ms / baseline.p50Ms).toFixed(1)}×`,
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => (row[c] as string).length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join('  ');
  const calls = [...new Set(results.map((r) => r.calls))].join('/');
  return [
    `runstate bench: ${calls} sequential timed calls per operation, after ${notes.warmup} untimed warm-up calls` +
      (notes.latencyMs > 0 ? `; ${notes.latencyMs} ms added to every round trip at the proxies` : ''),
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    'redis RT   main-store Redis round trips per call (HTTP requests at its REST proxy; target 1)',
    'revoc. RT  revocation-store round trips per call (the auth check, counted at a second REST proxy)',
    'pg RT      PostgreSQL round trips per call (HTTP /sql requests + WebSocket connections at the Neon proxy)',
    'p50/p99    per-call latency of the app.request(...) call, response body read included',
    'calls/s    timed calls ÷ wall time of the sequential run (one call in flight), not a concurrent throughput',
    `p50 ÷ ping p50 latency against one Redis PING through the same proxy (${BASELINE}), measured in this run`,
    '',
    ...results.map((r) => `${r.name.padEnd(widths[0] as number)}  ${notes.descriptions.get(r.name) ?? ''}`),
  ].join('\n');
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Figure benches' results, one line each: `name  key value, key value…`. */
export function formatFigures(results: FigureResult[], descriptions: Map<string, string>): string {
  const width = Math.max(0, ...results.map((r) => r.name.length));
  const lines = results.map(
    (r) =>
      `${r.name.padEnd(width)}  ${Object.entries(r.figures)
        .map(([key, value]) => `${key} ${value}`)
        .join(', ')}`,
  );
  const notes = [...descriptions].map(([name, text]) => `${name}  ${text}`);
  return ['', ...lines, '', ...notes].join('\n');
}
