// Prints bench results: a readable table with the redis.ping baseline beside each operation (and one for the bursts,
// one for the figure benches), or one JSON object keyed by name.
import type { BurstResult, FigureResult, OperationFigures, OperationResult } from './operation.ts';

export const BASELINE = 'redis.ping';

type JsonFigures = OperationFigures & { calls: number };
type JsonBurst = JsonFigures & { concurrency: number; totalUpstreamLogins: number; wallMs: number };

export function toJson(results: OperationResult[], bursts: BurstResult[] = []): Record<string, JsonFigures | JsonBurst> {
  const out: Record<string, JsonFigures | JsonBurst> = {};
  for (const r of results) out[r.name] = figures(r);
  for (const b of bursts) {
    out[b.name] = { ...figures(b), concurrency: b.concurrency, totalUpstreamLogins: b.totalUpstreamLogins, wallMs: round(b.wallMs, 1) };
  }
  return out;
}

function figures(r: OperationResult): JsonFigures {
  return {
    redisRoundTrips: round(r.redisRoundTrips, 2),
    revocationRoundTrips: round(r.revocationRoundTrips, 2),
    pgRoundTrips: round(r.pgRoundTrips, 2),
    redisCommands: round(r.redisCommands, 2),
    revocationCommands: round(r.revocationCommands, 2),
    pgStatements: round(r.pgStatements, 2),
    upstreamLogins: round(r.upstreamLogins, 3),
    p50Ms: round(r.p50Ms, 3),
    p99Ms: round(r.p99Ms, 3),
    perSecond: round(r.perSecond, 1),
    cpuMsPerCall: round(r.cpuMsPerCall, 3),
    calls: r.calls,
  };
}

export function formatTable(
  results: OperationResult[],
  notes: { warmup: number; latencyMs: number; descriptions: Map<string, string> },
  bursts: BurstResult[] = [],
): string {
  const baseline = results.find((r) => r.name === BASELINE);
  const header = ['operation', 'redis RT', 'revoc. RT', 'pg RT', 'logins', 'p50 ms', 'p99 ms', 'calls/s', 'cpu ms', 'p50 ÷ ping'];
  const rows = results.map((r) => [
    r.name,
    r.redisRoundTrips.toFixed(2),
    r.revocationRoundTrips.toFixed(2),
    r.pgRoundTrips.toFixed(2),
    r.upstreamLogins.toFixed(2),
    r.p50Ms.toFixed(3),
    r.p99Ms.toFixed(3),
    r.perSecond.toFixed(0),
    r.cpuMsPerCall.toFixed(3),
    baseline === undefined ? '-' : `${(r.p50Ms / baseline.p50Ms).toFixed(1)}×`,
  ]);
  const burstHeader = ['burst', 'calls', 'callers', 'logins', 'redis RT', 'revoc. RT', 'pg RT', 'p50 ms', 'p99 ms', 'wall ms'];
  const burstRows = bursts.map((b) => [
    b.name,
    String(b.calls),
    String(b.concurrency),
    String(b.totalUpstreamLogins),
    b.redisRoundTrips.toFixed(2),
    b.revocationRoundTrips.toFixed(2),
    b.pgRoundTrips.toFixed(2),
    b.p50Ms.toFixed(3),
    b.p99Ms.toFixed(3),
    b.wallMs.toFixed(0),
  ]);
  const nameWidth = Math.max(...[...results, ...bursts].map((r) => r.name.length), header[0]!.length, burstHeader[0]!.length);
  const table = (head: string[], body: string[][]) => {
    const widths = head.map((h, c) => (c === 0 ? nameWidth : Math.max(h.length, ...body.map((row) => (row[c] as string).length))));
    const line = (cells: string[]) =>
      cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join('  ');
    return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)];
  };
  const calls = [...new Set(results.map((r) => r.calls))].join('/');
  return [
    `runstate bench: ${calls} sequential timed calls per operation, after ${notes.warmup} untimed warm-up calls` +
      (notes.latencyMs > 0 ? `; ${notes.latencyMs} ms added to every round trip at the proxies` : ''),
    '',
    ...table(header, rows),
    ...(bursts.length > 0 ? ['', ...table(burstHeader, burstRows)] : []),
    '',
    'redis RT   main-store Redis round trips per call (HTTP requests at its REST proxy; target 1)',
    'revoc. RT  revocation-store round trips per call (the auth check, counted at a second REST proxy)',
    'pg RT      PostgreSQL round trips per call (HTTP /sql requests + WebSocket connections at the Neon proxy)',
    'logins     logins at the fake Syrve upstream (licence seats taken): per call for operations, in all for a burst',
    'p50/p99    per-call latency of the app.request(...) call, response body read included',
    'calls/s    timed calls ÷ wall time of the sequential run (one call in flight), not a concurrent throughput',
    'cpu ms     this process CPU (user + system) per call over the timed run: the app with the in-process proxies',
    `p50 ÷ ping p50 latency against one Redis PING through the same proxy (${BASELINE}), measured in this run`,
    ...(bursts.length > 0
      ? ['callers    calls in flight at once in a burst (no warm-up; wall ms from the first call to the last answer)']
      : []),
    '',
    ...[...results, ...bursts].map((r) => `${r.name.padEnd(nameWidth)}  ${notes.descriptions.get(r.name) ?? ''}`),
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
