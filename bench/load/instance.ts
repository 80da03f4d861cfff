// One app instance of the load mode, a child process of its own (as an isolate or a Lambda is its own, and so its
// `process.cpuUsage()` is its CPU alone): the real app composed from the bench's environment out of the source tree it
// is given (this checkout's, or a baseline ref's: bench/load/baseline.ts), its share of the callers, and each phase
// driven when the bench asks, answered with the phase's figures and the CPU the process spent on it.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { createJsonLogger as CreateJsonLogger } from '../../lib/log/logger.ts';
import type { composeApp as ComposeApp } from '../../local/stack/app.ts';
import { mintToken } from '../../local/stack/tokens.ts';
import { profiled, type BucketTimes } from './cpu-profile.ts';
import { drive, type DriveOptions, type DriveResult } from './driver.ts';
import type { LoadContext } from './operations.ts';
import { createPools } from './pools.ts';
import type { HeldInvite, SignedIn } from './state.ts';
import type { LoadMember, LoadOrganization } from './tenants.ts';

/** What the bench hands each instance (structured-cloned; the environment holds the bench's own secrets). */
export interface InstanceData {
  env: Record<string, string>;
  /** The source tree whose app this instance runs (its own node_modules beside it). */
  appRoot: string;
  index: number;
  callers: number;
  organizations: LoadOrganization[];
  members: LoadMember[];
  sessions: SignedIn[];
  invites: HeldInvite[];
  connections: Map<string, string>;
  password: string;
}

/** A phase: a drive of this instance's callers, with the CPU profiler on or not. */
export type Phase = Omit<DriveOptions, 'callers'> & {
  profile?: boolean;
  /** With `profile`: a file path prefix; the instance writes its whole profile to `<prefix>-<index>.cpuprofile`. */
  saveProfileAs?: string;
};

/** What a phase answers: its drive, the CPU (µs, user + system, every thread) this process spent, and its profile. */
export interface PhaseResult {
  drive: DriveResult;
  cpuMicros: number;
  buckets?: BucketTimes;
}

/** Messages: the instance says `ready` once its app is built, is sent phases, and answers each with its result. */
export type InstanceMessage = { ready: true } | { result: PhaseResult };

const send = (message: InstanceMessage) => process.send?.(message);
if (process.send === undefined) throw new Error('bench/load/instance.ts runs as a child process of the bench');
// The bench gone (done, killed or crashed): nothing is left to drive.
process.once('disconnect', () => process.exit(0));

const data = await new Promise<InstanceData>((resolve) => process.once('message', resolve));
const fromTree = (path: string) => import(pathToFileURL(join(data.appRoot, path)).href);
const { composeApp } = (await fromTree('local/stack/app.ts')) as { composeApp: typeof ComposeApp };
const { createJsonLogger } = (await fromTree('lib/log/logger.ts')) as { createJsonLogger: typeof CreateJsonLogger };

// Silent logs (the report is the figures) and a notifier that sends nothing, as the bench stack's own app has.
const { request } = composeApp(data.env, { logger: createJsonLogger(() => undefined), notifier: { send: async () => undefined } });
const secret = data.env.AUTH_JWT_SECRET ?? '';
const context: LoadContext = {
  request,
  token: (claims) => mintToken(secret, claims),
  pools: createPools(data, data.index * 997),
  organizations: new Map(data.organizations.map((org) => [org.organizationId, org])),
  connections: data.connections,
  password: data.password,
};

async function runPhase(phase: Phase): Promise<PhaseResult> {
  const { profile, saveProfileAs, ...drivePhase } = phase;
  const options = { ...drivePhase, callers: data.callers };
  const cpu = process.cpuUsage();
  if (profile !== true) {
    const result = await drive(context, options);
    const { user, system } = process.cpuUsage(cpu);
    return { drive: result, cpuMicros: user + system };
  }
  const saveAs = saveProfileAs === undefined ? undefined : `${saveProfileAs}-${data.index}.cpuprofile`;
  const { result, buckets } = await profiled(() => drive(context, options), saveAs);
  const { user, system } = process.cpuUsage(cpu);
  return { drive: result, cpuMicros: user + system, buckets };
}

send({ ready: true });
process.on('message', (phase: Phase) => {
  void runPhase(phase).then((result) => send({ result }));
});
