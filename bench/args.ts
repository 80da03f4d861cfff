// Command-line options of `npm run bench`: --calls N, --latency-ms N, --only PREFIXES, --json, --help.
export const DEFAULT_CALLS = 2_000;
export const WARMUP_CALLS = 50;

export interface BenchArgs {
  calls: number;
  /** Added to every round trip at the three proxies (main Redis, revocation, PostgreSQL), as a network would. */
  latencyMs: number;
  /** Name prefixes to run (empty: all); the redis.ping baseline always runs. */
  only: string[];
  json: boolean;
  help: boolean;
}

export const USAGE = `usage: npm run bench -- [--calls N] [--latency-ms N] [--only PREFIX[,PREFIX…]] [--json]
  --calls N       timed calls per operation (default ${DEFAULT_CALLS}; ${WARMUP_CALLS} untimed warm-up calls come first)
  --latency-ms N  add N ms to every round trip at the Redis, revocation and Neon proxies (default 0), as a network would
  --only P,Q      run only the operations and bursts whose names start with P or Q (redis.ping, the baseline, always runs)
  --json          print one JSON object keyed by operation instead of the table
environment: REDIS_URL (else a redis-server from PATH on a free port),
             DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch database is created and dropped)`;

export function parseBenchArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { calls: DEFAULT_CALLS, latencyMs: 0, only: [], json: false, help: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--json') args.json = true;
    else if (arg === '--help' || arg === '-h') args.help = true;
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
  return args;
}

/** Whether `--only` selects this bench (no `--only`: everything). */
export function selected(args: BenchArgs, name: string): boolean {
  return args.only.length === 0 || args.only.some((prefix) => name.startsWith(prefix));
}
