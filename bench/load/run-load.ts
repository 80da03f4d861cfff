// `npm run bench -- --load`: seeds a tenant population, drives the mix with concurrent callers for a bounded time
// through the proxies, and reports throughput, latency, failures, CPU, commands and cost per request, a CPU profile of
// the mix by bucket, and memory per tenant. With `--baseline REF` a ref's app runs the same phases beside this one's,
// the two taking turns, so both see the same machine.
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance as nodePerformance } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Teardown } from '../../local/stack/teardown.ts';
import type { LoadArgs } from '../args.ts';
import { MIX, type MixName } from '../mix.ts';
import { startBenchStack, type RoundTrips } from '../stack.ts';
import { prepareBaseline } from './baseline.ts';
import type { Phase, PhaseResult } from './instance.ts';
import { sequence, startInstances, type InstanceFleet } from './instances.ts';
import { memoryByKeyRow } from './memory.ts';
import { formatLoadReport, loadJson, type SideReport } from './report.ts';
import { seedState } from './state.ts';
import { seedTenants } from './tenants.ts';

/** Live invites per organisation written in bulk, besides the ones made through the API. */
const BULK_INVITES_PER_ORGANIZATION = 10;
/** Signed-in sessions (with a context) per member, and invites held to accept or cancel per organisation. */
const SESSIONS_PER_MEMBER = 1 / 20;
const HELD_INVITES_PER_ORGANIZATION = 1 / 2;
/** Each instance runs the mix this long, untimed and uncounted, before the measured run. */
const WARM_UP_MS = 3_000;
/**
 * With a baseline the measured mix runs in this many turns, baseline and current in the order B C C B B C: a drift in
 * the machine's load (other work starting or ending) falls on both alike.
 */
const TURNS = [1, 0, 0, 1, 1, 0];

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Side {
  label: string;
  fleet: InstanceFleet;
  mix: PhaseResult[];
  counts: RoundTrips;
  mainCpuMicros: number;
  mainBusyMs: number;
  perKind: Map<MixName, PhaseResult>;
  profile?: PhaseResult;
}

const noCounts = (): RoundTrips => ({
  redis: 0,
  revocation: 0,
  pg: 0,
  redisCommands: 0,
  revocationCommands: 0,
  pgStatements: 0,
  upstreamLogins: 0,
});

async function describeCheckout(): Promise<string> {
  const git = promisify(execFile);
  const head = (await git('git', ['-C', REPO_ROOT, 'rev-parse', '--short=12', 'HEAD'])).stdout.trim();
  const dirty = (await git('git', ['-C', REPO_ROOT, 'status', '--porcelain', '--untracked-files=no'])).stdout.trim() !== '';
  return `current ${head}${dirty ? '+changes' : ''}`;
}

export async function runLoad(args: LoadArgs, teardown: Teardown, output: { json: boolean }): Promise<void> {
  const progress = (line: string) => process.stderr.write(`bench --load: ${line}\n`);
  // Before the stack: a baseline's npm ci takes a minute, and nothing is running yet to wait on it.
  const baseline = args.baseline === undefined ? undefined : await prepareBaseline(args.baseline, REPO_ROOT, progress);
  const stack = await startBenchStack(teardown);
  const seedStarted = performance.now();
  progress(`seeding ${args.organizations} organisations and ${args.users} users …`);
  const tenants = await seedTenants(stack, args.organizations, Math.floor(args.users / args.organizations));
  const sizes = {
    sessions: Math.max(1, Math.round(tenants.members.length * SESSIONS_PER_MEMBER)),
    bulkInvitesPerOrganization: BULK_INVITES_PER_ORGANIZATION,
    heldInvites: Math.max(1, Math.round(args.organizations * HELD_INVITES_PER_ORGANIZATION)),
  };
  progress(
    `signing in ${sizes.sessions} sessions, ${sizes.heldInvites + sizes.bulkInvitesPerOrganization * args.organizations} invites, ${args.organizations} Syrve connections …`,
  );
  const state = await seedState(stack, tenants, sizes);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const population =
    `${tenants.organizations.length} organisations, ${tenants.members.length} users (one admin each, the rest Viewers), ` +
    `${state.bulkInvites + state.heldInvites.length} live invites (${state.heldInvites.length} with tokens held), ` +
    `${state.sessions.length} signed-in sessions with an active context, ${state.connections.size} Syrve connections with a cached upstream session`;

  // Latency from here on only: seeding is not what is measured.
  if (args.latencyMs > 0) stack.addLatency(args.latencyMs);
  const trees = [
    { label: await describeCheckout(), root: REPO_ROOT },
    ...(baseline === undefined ? [] : [{ label: `baseline ${baseline.commit.slice(0, 12)}`, root: baseline.root }]),
  ];
  // Every instance of either side holds sessions and invites of its own.
  const shares = args.instances * trees.length;
  const mine = <T>(items: T[], index: number) => items.filter((_, i) => i % shares === index);
  const sides: Side[] = trees.map((tree, t) => {
    const fleet = startInstances(
      Array.from({ length: args.instances }, (_, i) => ({
        env: stack.appEnv,
        appRoot: tree.root,
        index: t * args.instances + i,
        // 64 callers over 4 instances: 16 each; a remainder goes to the first ones.
        callers: Math.floor(args.callers / args.instances) + (i < args.callers % args.instances ? 1 : 0),
        organizations: tenants.organizations,
        members: tenants.members,
        sessions: mine(state.sessions, t * args.instances + i),
        invites: mine(state.heldInvites, t * args.instances + i),
        connections: state.connections,
        password: tenants.password,
      })),
    );
    teardown.add(`load instances (${tree.label})`, fleet.close);
    return { label: tree.label, fleet, mix: [], counts: noCounts(), mainCpuMicros: 0, mainBusyMs: 0, perKind: new Map() };
  });
  progress(`${args.instances} app instances per side warming up …`);
  for (const side of sides) await side.fleet.ready;
  // The mix, untimed, first: JIT, connections and script loading land here, not in the figures.
  for (const side of sides) await side.fleet.run({ durationMs: WARM_UP_MS });

  const before = loadavg();
  const turns = sides.length === 1 ? [0] : TURNS;
  const turnMs = (args.durationS * 1000 * sides.length) / turns.length;
  progress(`${args.callers} callers on ${args.instances} instances for ${args.durationS} s per side, ${turns.length} turns …`);
  for (const turn of turns) {
    const side = sides[turn] as Side;
    stack.counters.reset();
    // The bench process serves every proxy and the fake: its CPU is theirs, not the app's.
    const mainLoop = nodePerformance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    side.mix.push(await side.fleet.run({ durationMs: turnMs }));
    const { user, system } = process.cpuUsage(cpu);
    side.mainCpuMicros += user + system;
    const loop = nodePerformance.eventLoopUtilization(mainLoop);
    side.mainBusyMs += loop.active;
    const counts = stack.counters.read();
    for (const key of Object.keys(counts) as Array<keyof RoundTrips>) side.counts[key] += counts[key];
  }

  progress(`each operation alone, ${args.opCalls} calls per side …`);
  const perInstance = Math.ceil(args.opCalls / args.instances);
  for (const [k, entry] of MIX.entries()) {
    // Alternating which side goes first, so neither always follows the other's work.
    const order = k % 2 === 0 ? [...sides].reverse() : sides;
    for (const side of order) side.perKind.set(entry.name, await side.fleet.run({ kind: entry.name, calls: perInstance }));
  }

  progress(`the mix under the CPU profiler, ${args.profileS} s per side …`);
  if (args.profileDir !== undefined) await mkdir(args.profileDir, { recursive: true });
  for (const [s, side] of [...sides.entries()].reverse()) {
    const phase: Phase = { durationMs: args.profileS * 1000, profile: true };
    if (args.profileDir !== undefined) phase.saveProfileAs = join(args.profileDir, s === 0 ? 'current' : 'baseline');
    side.profile = await side.fleet.run(phase);
  }
  const after = loadavg();
  progress('measuring Redis memory by key row …');
  const memory = await memoryByKeyRow(stack.redis, stack.config.keyPrefix);

  const sideReports: SideReport[] = sides.map((side) => {
    const mix = sequence(side.mix);
    return {
      label: side.label,
      mix,
      counts: side.counts,
      mainCpuMs: side.mainCpuMicros / 1000,
      mainBusy: side.mainBusyMs / mix.drive.wallMs,
      perKind: side.perKind,
      profile: side.profile as PhaseResult,
    };
  });
  const report = {
    settings: {
      callers: args.callers,
      instances: args.instances,
      durationS: args.durationS,
      latencyMs: args.latencyMs,
      opCalls: args.opCalls,
      profileS: args.profileS,
      turns: turns.length,
    },
    population,
    seedSeconds,
    organizations: tenants.organizations.length,
    machine: { before, after, cores: cpus().length },
    sides: sideReports,
    memory,
  };
  console.log(output.json ? JSON.stringify(loadJson(report), null, 2) : formatLoadReport(report));
}
