// Prints what a load run measured: per side (this checkout, and a baseline ref when given) throughput, latency and
// failures per kind, Redis commands and cost per request, PostgreSQL per request; CPU per request by operation and a
// CPU profile of the mix by bucket, the sides in columns; and Redis memory per organisation by key row.
import { percentile } from '../runner.ts';
import { MIX, MIX_WEIGHTS_LINE } from '../mix.ts';
import { BILLING_LEGEND, usdPerMillionCalls } from '../pricing.ts';
import type { RoundTrips } from '../stack.ts';
import { BUCKETS, type Bucket } from './cpu-profile.ts';
import type { DriveResult, KindFigures } from './driver.ts';
import type { PhaseResult } from './instance.ts';
import type { MixName } from '../mix.ts';
import type { KeyRowMemory } from './memory.ts';

/** One app's figures: this checkout's, or the baseline ref's. */
export interface SideReport {
  label: string;
  /** The measured mix (its turns summed): drive figures and the instances' CPU. */
  mix: PhaseResult;
  counts: RoundTrips;
  /** The bench process's CPU (the proxies and the fake) during this side's turns, and how busy its event loop was. */
  mainCpuMs: number;
  mainBusy: number;
  /** Each kind alone, a fixed number of calls. */
  perKind: Map<MixName, PhaseResult>;
  /** The mix again, under the CPU profiler. */
  profile: PhaseResult;
}

export interface LoadReport {
  settings: { callers: number; instances: number; durationS: number; latencyMs: number; opCalls: number; profileS: number; turns: number };
  population: string;
  seedSeconds: number;
  organizations: number;
  /** Load averages of the machine before and after the measured phases, and its cores. */
  machine: { before: number[]; after: number[]; cores: number };
  /** This checkout first, then the baseline when one ran. */
  sides: SideReport[];
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

/** CPU ms per call of a phase: the instances' CPU over every call they made. */
function cpuPerCall(phase: PhaseResult): number {
  const { calls } = totals(phase.drive);
  return calls === 0 ? 0 : phase.cpuMicros / 1000 / calls;
}

const requestsPerSecond = (phase: PhaseResult) => totals(phase.drive).calls / (phase.drive.wallMs / 1000);

function failuresLine(drives: DriveResult[]): string {
  const kinds = new Map<string, number>();
  for (const drive of drives) for (const [kind, n] of drive.failureKinds) kinds.set(kind, (kinds.get(kind) ?? 0) + n);
  if (kinds.size === 0) return 'errors: none';
  const failures = [...kinds.values()].reduce((sum, n) => sum + n, 0);
  return `errors: ${failures} — ${[...kinds]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ×${n}`)
    .join('; ')}`;
}

function sideSection(side: SideReport, turns: number): string[] {
  const { drive, cpuMicros } = side.mix;
  const { counts } = side;
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
  return [
    `${side.label}:`,
    ...table(['operation', 'weight', 'calls', 'calls/s', 'p50 ms', 'p99 ms', 'errors'], kindRows),
    `throughput: ${(calls / seconds).toFixed(1)} requests/s over ${seconds.toFixed(1)} s in ${turns} turn(s) (calls in flight at each turn's end included)`,
    `cpu: instances ${(cpuMicros / 1000 / Math.max(1, calls)).toFixed(2)} ms per request (${(cpuMicros / 1000 / drive.wallMs).toFixed(2)} cores), ` +
      `event loops ${(drive.eventLoopBusy * 100).toFixed(0)} % busy; the bench process (proxies, fake) ${(side.mainCpuMs / Math.max(1, calls)).toFixed(2)} ms per request, ` +
      `its event loop ${(side.mainBusy * 100).toFixed(0)} % busy`,
    failuresLine([drive]),
    `redis: ${billed} billed commands (main ${counts.redisCommands}, revocation ${counts.revocationCommands}) = ` +
      `${perRequest(billed).toFixed(2)} per request, ${(billed / seconds).toFixed(0)} per second; ` +
      `USD ${usdPerMillionCalls(perRequest(billed)).toFixed(2)} per million requests; ` +
      `${perRequest(counts.redis + counts.revocation).toFixed(2)} round trips per request`,
    `postgres: ${perRequest(counts.pgStatements).toFixed(2)} statements and ${perRequest(counts.pg).toFixed(2)} round trips per request; ` +
      `syrve upstream logins: ${counts.upstreamLogins}`,
  ];
}

/** `new ÷ old` of the last side (the baseline) against the first (this checkout), when there are two. */
const ratio = (values: number[]) => (values.length < 2 ? [] : [`${((values[0] as number) / (values[1] as number)).toFixed(2)}×`]);

function cpuSection(report: LoadReport): string[] {
  const { sides, settings } = report;
  const head = ['CPU ms per request', ...sides.map((side) => side.label), ...(sides.length > 1 ? ['current ÷ baseline'] : [])];
  const row = (name: string, values: number[], digits = 2) => [name, ...values.map((v) => v.toFixed(digits)), ...ratio(values)];
  const rows = [
    row(
      `mix (${settings.callers} callers)`,
      sides.map((side) => cpuPerCall(side.mix)),
    ),
    ...MIX.map((entry) =>
      row(
        entry.name,
        sides.map((side) => cpuPerCall(side.perKind.get(entry.name) as PhaseResult)),
      ),
    ),
    row(
      `requests/s, mix at ${settings.callers} callers`,
      sides.map((side) => requestsPerSecond(side.mix)),
      1,
    ),
  ];
  const kindFailures = sides.flatMap((side) => [...side.perKind.values()].map((phase) => phase.drive));
  return [
    ...table(head, rows),
    `the mix: its measured turns; each operation alone: ${settings.opCalls} calls by the same callers; ` +
      'CPU: the instances\u2019 own process.cpuUsage() (user + system, every thread of each process: the KDF on libuv\u2019s pool, GC), ' +
      'the callers\u2019 share included (drawing, minting invitees\u2019 tokens, reading answers). ' +
      failuresLine(kindFailures).replace('errors', 'operations alone, errors'),
  ];
}

function profileSection(report: LoadReport): string[] {
  const { sides, settings } = report;
  const sampled = sides.map((side) => Object.values(side.profile.buckets ?? {}).reduce((sum, v) => sum + (v ?? 0), 0));
  const share = (s: number, bucket: Bucket) => (sides[s]!.profile.buckets?.[bucket] ?? 0) / Math.max(1, sampled[s]!);
  const rows = BUCKETS.map((bucket) => [
    bucket,
    ...sides.flatMap((side, s) => [`${(100 * share(s, bucket)).toFixed(1)} %`, (share(s, bucket) * cpuPerCall(side.profile)).toFixed(3)]),
  ]);
  rows.push(['all (samples)', ...sides.flatMap((side, s) => [String(sampled[s]), cpuPerCall(side.profile).toFixed(3)])]);
  return [
    `CPU profile of the mix, ${settings.profileS} s per side (node:inspector Profiler sampling every 0.5 ms on the instances' main threads):`,
    ...table(['bucket', ...sides.flatMap((side) => [side.label, 'ms/request'])], rows),
    'share: of the busy samples; ms/request: the share times the process CPU per request of that phase (an estimate: the KDF',
    '  of sign-ins runs on libuv\u2019s threads and GC partly on helper threads, which the main thread\u2019s samples do not see).',
    'a sample counts in the bucket of the function it caught; builtins and Node internals count in their caller\u2019s, except',
    '  JSON.parse/stringify; zod is "request validation" when Hono called it, else stored values, claims and config; "HTTP"',
    '  is undici\u2019s fetch (the Request and Response objects of every app.request and answer, and the drivers\u2019 calls',
    '  where fetch sends them) and node:http (the drivers\u2019 calls where the Node entries route them, store-fetch.ts).',
  ];
}

export function formatLoadReport(report: LoadReport): string {
  const { settings } = report;
  const memoryTotal = report.memory.reduce((sum, row) => sum + row.bytes, 0);
  const perOrg = (bytes: number) => (bytes / report.organizations).toFixed(0);
  const memoryRows = report.memory.map((row) => [row.row, String(row.keys), String(row.bytes), perOrg(row.bytes)]);
  memoryRows.push(['all rows', String(report.memory.reduce((sum, row) => sum + row.keys, 0)), String(memoryTotal), perOrg(memoryTotal)]);
  const loads = (values: number[]) => values.map((v) => v.toFixed(2)).join(' ');

  return [
    `runstate load: ${settings.callers} concurrent callers on ${settings.instances} app instances (child processes) for ${settings.durationS} s` +
      (report.sides.length > 1 ? ' per side, this checkout and the baseline taking turns' : '') +
      (settings.latencyMs > 0
        ? `, ${settings.latencyMs} ms added to every round trip at the Redis, revocation and Neon proxies`
        : ', no latency added'),
    `population: ${report.population}; seeded in ${report.seedSeconds.toFixed(0)} s`,
    `machine: ${report.machine.cores} cores, load average ${loads(report.machine.before)} before, ${loads(report.machine.after)} after`,
    '',
    ...report.sides.flatMap((side) => [...sideSection(side, settings.turns / report.sides.length), '']),
    ...cpuSection(report),
    '',
    ...profileSection(report),
    '',
    `redis memory after the run, MEMORY USAGE summed by key row of lib/keys, ÷ ${report.organizations} organisations:`,
    ...table(['key row', 'keys', 'bytes', 'bytes per org'], memoryRows),
    '',
    `mix: ${MIX_WEIGHTS_LINE} (weights out of 100; each call's kind drawn by them)`,
    BILLING_LEGEND + '.',
    'p50/p99: latency of the calls answered as expected, from the request to its body read, with every caller in flight;',
    '  each instance runs its callers and its app on one event loop; the proxies and the fake Syrve share the bench process\u2019s.',
  ].join('\n');
}

export function loadJson(report: LoadReport): Record<string, unknown> {
  const side = (s: SideReport) => {
    const { drive, cpuMicros } = s.mix;
    const seconds = drive.wallMs / 1000;
    const { calls, failures } = totals(drive);
    const billed = s.counts.redisCommands + s.counts.revocationCommands;
    return {
      label: s.label,
      requestsPerSecond: calls / seconds,
      cpuMsPerRequest: cpuMicros / 1000 / Math.max(1, calls),
      cpuMsPerRequestByOperation: Object.fromEntries([...s.perKind].map(([name, phase]) => [name, cpuPerCall(phase)])),
      profileMsPerRequest: Object.fromEntries(
        Object.entries(s.profile.buckets ?? {}).map(([bucket, total]) => [
          bucket,
          (total ?? 0) / Math.max(1, totals(s.profile.drive).calls),
        ]),
      ),
      mainCpuMsPerRequest: s.mainCpuMs / Math.max(1, calls),
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
      pgStatementsPerRequest: calls === 0 ? 0 : s.counts.pgStatements / calls,
    };
  };
  return {
    settings: report.settings,
    population: report.population,
    machine: report.machine,
    sides: report.sides.map(side),
    memoryBytesPerOrganization: Object.fromEntries(report.memory.map((row) => [row.row, row.bytes / report.organizations])),
  };
}
