// Prints what a load run measured: throughput, latency and failures per kind, Redis commands and cost per request,
// PostgreSQL per request, and Redis memory per organisation by key row.
import { percentile } from '../runner.ts';
import { MIX, MIX_WEIGHTS_LINE } from '../mix.ts';
import { BILLING_LEGEND, usdPerMillionCalls } from '../pricing.ts';
import type { RoundTrips } from '../stack.ts';
import type { DriveResult, KindFigures } from './driver.ts';
import type { KeyRowMemory } from './memory.ts';

export interface LoadReport {
  settings: { callers: number; instances: number; durationS: number; latencyMs: number };
  population: string;
  seedSeconds: number;
  organizations: number;
  /**
   * Load averages of the machine before and after the run and its cores; the CPU time this process spent during the
   * run (every thread: instances, proxies, fake) and how busy the main thread's event loop (the proxies) was.
   */
  machine: { before: number[]; after: number[]; cores: number; cpuMs: number; mainBusy: number };
  drive: DriveResult;
  counts: RoundTrips;
  memory: KeyRowMemory[];
}

function table(head: string[], body: string[][]): string[] {
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((row) => (row[c] as string).length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)];
}

const ms = (samples: number[], p: number) => {
  const sorted = Float64Array.from(samples).sort();
  return sorted.length === 0 ? '-' : percentile(sorted, p).toFixed(1);
};

/** Requests answered as expected plus those that failed: every call the callers made. */
function totals(drive: DriveResult): { calls: number; failures: number; all: number[] } {
  const kinds = [...drive.kinds.values()];
  const all = kinds.flatMap((k) => k.latencies);
  const failures = kinds.reduce((sum, k) => sum + k.failures, 0);
  return { calls: all.length + failures, failures, all };
}

export function formatLoadReport(report: LoadReport): string {
  const { drive, counts, settings } = report;
  const seconds = drive.wallMs / 1000;
  const { calls, failures, all } = totals(drive);
  const kindRows = MIX.map((entry) => {
    const k = drive.kinds.get(entry.name) as KindFigures;
    const n = k.latencies.length + k.failures;
    return [
      entry.name,
      String(entry.weight),
      String(n),
      (n / seconds).toFixed(1),
      ms(k.latencies, 50),
      ms(k.latencies, 99),
      String(k.failures),
    ];
  });
  kindRows.push(['all', '100', String(calls), (calls / seconds).toFixed(1), ms(all, 50), ms(all, 99), String(failures)]);

  const billed = counts.redisCommands + counts.revocationCommands;
  const perRequest = (n: number) => (calls === 0 ? 0 : n / calls);
  const memoryTotal = report.memory.reduce((sum, row) => sum + row.bytes, 0);
  const perOrg = (bytes: number) => (bytes / report.organizations).toFixed(0);
  const memoryRows = report.memory.map((row) => [row.row, String(row.keys), String(row.bytes), perOrg(row.bytes)]);
  memoryRows.push(['all rows', String(report.memory.reduce((sum, row) => sum + row.keys, 0)), String(memoryTotal), perOrg(memoryTotal)]);
  const loads = (values: number[]) => values.map((v) => v.toFixed(2)).join(' ');

  return [
    `runstate load: ${settings.callers} concurrent callers on ${settings.instances} app instances (worker threads) for ${settings.durationS} s` +
      (settings.latencyMs > 0
        ? `, ${settings.latencyMs} ms added to every round trip at the Redis, revocation and Neon proxies`
        : ', no latency added'),
    `population: ${report.population}; seeded in ${report.seedSeconds.toFixed(0)} s`,
    `machine: ${report.machine.cores} cores, load average ${loads(report.machine.before)} before, ${loads(report.machine.after)} after; ` +
      `this process ${(report.machine.cpuMs / Math.max(1, calls)).toFixed(1)} ms CPU per request (${(report.machine.cpuMs / drive.wallMs).toFixed(2)} cores); ` +
      `event loops busy: instances ${(drive.eventLoopBusy * 100).toFixed(0)} %, main thread (proxies, fake) ${(report.machine.mainBusy * 100).toFixed(0)} %`,
    '',
    ...table(['operation', 'weight', 'calls', 'calls/s', 'p50 ms', 'p99 ms', 'errors'], kindRows),
    '',
    `throughput: ${(calls / seconds).toFixed(1)} requests/s over ${seconds.toFixed(1)} s (calls in flight at the end included)`,
    failures === 0
      ? 'errors: none'
      : `errors: ${failures} — ${[...drive.failureKinds]
          .sort((a, b) => b[1] - a[1])
          .map(([kind, n]) => `${kind} ×${n}`)
          .join('; ')}`,
    `redis: ${billed} billed commands (main ${counts.redisCommands}, revocation ${counts.revocationCommands}) = ` +
      `${perRequest(billed).toFixed(2)} per request, ${(billed / seconds).toFixed(0)} per second; ` +
      `USD ${usdPerMillionCalls(perRequest(billed)).toFixed(2)} per million requests; ` +
      `${perRequest(counts.redis + counts.revocation).toFixed(2)} round trips per request`,
    `postgres: ${perRequest(counts.pgStatements).toFixed(2)} statements and ${perRequest(counts.pg).toFixed(2)} round trips per request; ` +
      `syrve upstream logins: ${counts.upstreamLogins}`,
    '',
    `redis memory after the run, MEMORY USAGE summed by key row of lib/keys, ÷ ${report.organizations} organisations:`,
    ...table(['key row', 'keys', 'bytes', 'bytes per org'], memoryRows),
    '',
    `mix: ${MIX_WEIGHTS_LINE} (weights out of 100; each call's kind drawn by them)`,
    BILLING_LEGEND + '.',
    'p50/p99: latency of the calls answered as expected, from the request to its body read, with every caller in flight;',
    '  each instance runs its callers and its app on one event loop; the proxies and the fake Syrve share the main one.',
  ].join('\n');
}

export function loadJson(report: LoadReport): Record<string, unknown> {
  const { drive, counts } = report;
  const seconds = drive.wallMs / 1000;
  const { calls, failures } = totals(drive);
  const billed = counts.redisCommands + counts.revocationCommands;
  return {
    settings: report.settings,
    population: report.population,
    machine: report.machine,
    requestsPerSecond: calls / seconds,
    operations: Object.fromEntries(
      [...drive.kinds].map(([name, k]) => [
        name,
        {
          calls: k.latencies.length + k.failures,
          failures: k.failures,
          p50Ms: Number(ms(k.latencies, 50)),
          p99Ms: Number(ms(k.latencies, 99)),
        },
      ]),
    ),
    failures,
    failureKinds: Object.fromEntries(drive.failureKinds),
    billedCommandsPerRequest: calls === 0 ? 0 : billed / calls,
    usdPerMillionRequests: usdPerMillionCalls(calls === 0 ? 0 : billed / calls),
    pgStatementsPerRequest: calls === 0 ? 0 : counts.pgStatements / calls,
    memoryBytesPerOrganization: Object.fromEntries(report.memory.map((row) => [row.row, row.bytes / report.organizations])),
  };
}
