// Command-line options of `npm run bench`: --calls N, --latency-ms N, --only PREFIXES, --json, --help; and the load
// mode's --load, --duration-s N, --callers N, --instances N, --organizations N, --users N, --op-calls N, --profile-s N,
// --baseline REF.
export const DEFAULT_CALLS = 2_000;
export const WARMUP_CALLS = 50;

/** The load mode's options (`--load`); `latencyMs` is shared with the per-operation run. */
export interface LoadArgs {
  durationS: number;
  callers: number;
  /** App instances, each a worker thread with its own app and clients; the callers are spread over them. */
  instances: number;
  organizations: number;
  users: number;
  latencyMs: number;
  /** Calls of each operation alone, per side, for its CPU per request. */
  opCalls: number;
  /** Seconds of the mix under the CPU profiler, per side. */
  profileS: number;
  /** A git ref whose app runs the same phases beside this checkout's (bench/load/baseline.ts). */
  baseline: string | undefined;
  /** Where each instance writes its whole CPU profile (`.cpuprofile`, for Chrome's DevTools), if anywhere. */
  profileDir: string | undefined;
}
const LOAD_DEFAULTS = { durationS: 30, callers: 64, instances: 4, organizations: 1_000, users: 10_000, opCalls: 200, profileS: 5 };
/** The bench's tokens live an hour (bench/stack.ts): a run must end well within it. */
const MAX_DURATION_S = 1_800;

export interface BenchArgs {
  calls: number;
  /** Added to every round trip at the three proxies (main Redis, revocation, PostgreSQL), as a network would. */
  latencyMs: number;
  /** Name prefixes to run (empty: all); the redis.ping baseline always runs. */
  only: string[];
  json: boolean;
  help: boolean;
  /** Set by --load: the load mode instead of the per-operation run. */
  load: LoadArgs | undefined;
}

export const USAGE = `usage: npm run bench -- [--calls N] [--latency-ms N] [--only PREFIX[,PREFIX…]] [--json]
  --calls N       timed calls per operation (default ${DEFAULT_CALLS}; ${WARMUP_CALLS} untimed warm-up calls come first)
  --latency-ms N  add N ms to every round trip at the Redis, revocation and Neon proxies (default 0), as a network would
  --only P,Q      run only the operations and bursts whose names start with P or Q (redis.ping, the baseline, always runs)
  --json          print one JSON object keyed by operation instead of the table
usage: npm run bench -- --load [--duration-s N] [--callers N] [--instances N] [--organizations N] [--users N] [--latency-ms N]
                        [--op-calls N] [--profile-s N] [--profile-dir DIR] [--baseline REF] [--json]
  --load          drive the request mix (bench/mix.ts) over a seeded tenant population with concurrent callers
  --duration-s N  how long the callers run the measured mix (default ${LOAD_DEFAULTS.durationS}, at most ${MAX_DURATION_S}; per side with --baseline)
  --callers N     callers in flight at once (default ${LOAD_DEFAULTS.callers})
  --instances N   app instances (child processes, each its own app and clients) the callers are spread over (default ${LOAD_DEFAULTS.instances})
  --op-calls N    calls of each operation alone, for its CPU per request (default ${LOAD_DEFAULTS.opCalls})
  --profile-s N   seconds of the mix under the CPU profiler (default ${LOAD_DEFAULTS.profileS})
  --profile-dir DIR  also write each instance's whole CPU profile there (<side>-<instance>.cpuprofile)
  --baseline REF  a git ref (branch, tag, commit) whose app runs the same phases beside this checkout's, taking turns
  --organizations N, --users N  the population (default ${LOAD_DEFAULTS.organizations} and ${LOAD_DEFAULTS.users}; at least 2 users per organisation)
environment: REDIS_URL (else a redis-server from PATH on a free port),
             DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch database is created and dropped)`;

export function parseBenchArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { calls: DEFAULT_CALLS, latencyMs: 0, only: [], json: false, help: false, load: undefined };
  let load = false;
  let baseline: string | undefined;
  let profileDir: string | undefined;
  const loadValues = { ...LOAD_DEFAULTS };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const loadOption = LOAD_OPTIONS.find((option) => arg === option.flag || arg.startsWith(`${option.flag}=`));
    if (arg === '--json') args.json = true;
    else if (arg === '--load') load = true;
    else if (arg === '--profile-dir' || arg.startsWith('--profile-dir=')) {
      const value = arg === '--profile-dir' ? argv[(i += 1)] : arg.slice('--profile-dir='.length);
      if (value === undefined || value === '' || value.startsWith('-')) throw new Error('--profile-dir needs a folder');
      profileDir = value;
    } else if (arg === '--baseline' || arg.startsWith('--baseline=')) {
      const value = arg === '--baseline' ? argv[(i += 1)] : arg.slice('--baseline='.length);
      if (value === undefined || value === '' || value.startsWith('-')) throw new Error('--baseline needs a git ref, e.g. --baseline main');
      baseline = value;
    } else if (loadOption !== undefined) {
      const value = arg === loadOption.flag ? argv[(i += 1)] : arg.slice(loadOption.flag.length + 1);
      const number = Number(value);
      if (!Number.isInteger(number) || number < 1)
        throw new Error(`${loadOption.flag} needs a positive whole number, got ${value ?? 'nothing'}`);
      loadValues[loadOption.field] = number;
    } else if (arg === '--help' || arg === '-h') args.help = true;
    else if (arg === '--calls' || arg.startsWith('--calls=')) {
      const value = arg === '--calls' ? argv[(i += 1)] : arg.slice('--calls='.length);
      const calls = Number(value);
      if (!Number.isInteger(calls) || calls < 1) throw new Error(`--calls needs a positive whole number, got ${value ?? 'nothing'}`);
      args.calls = calls;
    } else if (arg === '--latency-ms' || arg.startsWith('--latency-ms=')) {
      const value = arg === '--latency-ms' ? argv[(i += 1)] : arg.slice('--latency-ms='.length);
      const latencyMs = Number(value);
      if (!Number.isInteger(latencyMs) || latencyMs < 0)
        throw new Error(`--latency-ms needs a whole number ≥ 0, got ${value ?? 'nothing'}`);
      args.latencyMs = latencyMs;
    } else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg === '--only' ? argv[(i += 1)] : arg.slice('--only='.length);
      const prefixes = (value ?? '').split(',').filter((prefix) => prefix !== '');
      if (prefixes.length === 0) throw new Error('--only needs one or more name prefixes, e.g. --only syrve');
      args.only.push(...prefixes);
    } else throw new Error(`unknown option ${arg}\n${USAGE}`);
  }
  const loadOnly = [...LOAD_OPTIONS, { flag: '--baseline' }, { flag: '--profile-dir' }].find((option) =>
    argv.some((arg) => arg.startsWith(option.flag)),
  );
  if (!load && loadOnly !== undefined) throw new Error(`${loadOnly.flag} goes with --load`);
  if (load) {
    if (args.only.length > 0 || argv.some((arg) => arg.startsWith('--calls')))
      throw new Error('--load runs the whole mix: no --only or --calls');
    if (loadValues.durationS > MAX_DURATION_S) throw new Error(`--duration-s is at most ${MAX_DURATION_S}`);
    if (loadValues.users < 2 * loadValues.organizations) throw new Error('--users must be at least twice --organizations');
    if (loadValues.instances > loadValues.callers) throw new Error('--instances must not exceed --callers');
    args.load = { ...loadValues, latencyMs: args.latencyMs, baseline, profileDir };
  }
  return args;
}

const LOAD_OPTIONS: Array<{ flag: string; field: keyof typeof LOAD_DEFAULTS }> = [
  { flag: '--duration-s', field: 'durationS' },
  { flag: '--callers', field: 'callers' },
  { flag: '--instances', field: 'instances' },
  { flag: '--organizations', field: 'organizations' },
  { flag: '--users', field: 'users' },
  { flag: '--op-calls', field: 'opCalls' },
  { flag: '--profile-s', field: 'profileS' },
];

/** Whether `--only` selects this bench (no `--only`: everything). */
export function selected(args: BenchArgs, name: string): boolean {
  return args.only.length === 0 || args.only.some((prefix) => name.startsWith(prefix));
}
