// `npm run bench -- --load`: seeds a tenant population, drives the mix with concurrent callers for a bounded time
// through the proxies, and reports throughput, latency, failures, commands and cost per request, and memory per tenant.
import { performance as nodePerformance } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import type { Teardown } from '../../local/stack/teardown.ts';
import type { LoadArgs } from '../args.ts';
import { startBenchStack } from '../stack.ts';
import { startInstances } from './instances.ts';
import { memoryByKeyRow } from './memory.ts';
import { formatLoadReport, loadJson } from './report.ts';
import { seedState } from './state.ts';
import { seedTenants } from './tenants.ts';

/** Live invites per organisation written in bulk, besides the ones made through the API. */
const BULK_INVITES_PER_ORGANIZATION = 10;
/** Signed-in sessions (with a context) per member, and invites held to accept or cancel per organisation. */
const SESSIONS_PER_MEMBER = 1 / 20;
const HELD_INVITES_PER_ORGANIZATION = 1 / 2;
/** Each instance runs the mix this long, untimed and uncounted, before the measured run. */
const WARM_UP_MS = 3_000;

export async function runLoad(args: LoadArgs, teardown: Teardown, output: { json: boolean }): Promise<void> {
  const stack = await startBenchStack(teardown);
  const seedStarted = performance.now();
  const progress = (line: string) => process.stderr.write(`bench --load: ${line}\n`);
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
  const mine = <T>(items: T[], index: number) => items.filter((_, i) => i % args.instances === index);
  const fleet = startInstances(
    Array.from({ length: args.instances }, (_, index) => ({
      env: stack.appEnv,
      index,
      // 64 callers over 4 instances: 16 each; a remainder goes to the first ones.
      callers: Math.floor(args.callers / args.instances) + (index < args.callers % args.instances ? 1 : 0),
      warmUpMs: WARM_UP_MS,
      organizations: tenants.organizations,
      members: tenants.members,
      sessions: mine(state.sessions, index),
      invites: mine(state.heldInvites, index),
      connections: state.connections,
      password: tenants.password,
    })),
  );
  teardown.add('load instances', fleet.close);
  progress(`${args.instances} app instances warming up …`);
  await fleet.ready;
  progress(`${args.callers} callers on ${args.instances} instances for ${args.durationS} s …`);
  const before = loadavg();
  stack.counters.reset();
  // The main thread serves every proxy and the fake: how busy it was says whether they, not the app, set the pace.
  const mainLoop = nodePerformance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const driven = await fleet.run(args.durationS * 1000);
  const cpuMs = (({ user, system }) => (user + system) / 1000)(process.cpuUsage(cpu));
  const mainBusy = nodePerformance.eventLoopUtilization(mainLoop).utilization;
  const counts = stack.counters.read();
  const after = loadavg();
  progress('measuring Redis memory by key row …');
  const memory = await memoryByKeyRow(stack.redis, stack.config.keyPrefix);

  const report = {
    settings: { callers: args.callers, instances: args.instances, durationS: args.durationS, latencyMs: args.latencyMs },
    population,
    seedSeconds,
    organizations: tenants.organizations.length,
    machine: { before, after, cores: cpus().length, cpuMs, mainBusy },
    drive: driven,
    counts,
    memory,
  };
  console.log(output.json ? JSON.stringify(loadJson(report), null, 2) : formatLoadReport(report));
}
