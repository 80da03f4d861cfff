// Runs the Upstash-compatible REST proxy alone: `UPSTASH_REDIS_REST_TOKEN=… npm run redis-proxy -- --redis redis://127.0.0.1:6379 --port 8079`.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startRedisRestProxy } from './index.ts';

const USAGE = `Usage: npm run redis-proxy -- [--redis <redis://url>] [--port <port>] [--host <host>] [--token-file <path>] [--cluster] [--allow-admin] [--replica-lag-ms <ms>]

  --redis        Redis to front (default: $REDIS_URL, else redis://127.0.0.1:6379); a URL with a password
                 belongs in REDIS_URL, since every user of this machine can read a command line
  --port         port to listen on (default 8079; 0 picks a free one)
  --host         loopback address to bind (default 127.0.0.1; other addresses are refused)
  --token-file   file holding the bearer token clients must send (one line)
  --token        the token itself; shown by ps to every user, so prefer $UPSTASH_REDIS_REST_TOKEN or --token-file
                 (default: $UPSTASH_REDIS_REST_TOKEN, else a generated one, printed once)
  --cluster      --redis is one node of a Redis Cluster: commands go to their slot's master, keyless ones
                 (FLUSHDB, DBSIZE, KEYS, SCAN, SCRIPT LOAD) to every master, so clients see one keyspace
  --allow-admin  also forward CONFIG, DEBUG, MODULE, SHUTDOWN, REPLICAOF, MIGRATE, FAILOVER, ACL writes,
                 CLIENT KILL/PAUSE and CLUSTER writes (refused by default)
  --replica-lag-ms  reads from a redis-server replica (started from PATH) that applies every write this many
                 ms late, as an Upstash Global database's read region; upstash-sync-token orders a client's
                 reads after its writes (default 0: no replica; not with --cluster)`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      redis: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      'allow-admin': { type: 'boolean' },
      cluster: { type: 'boolean' },
      'replica-lag-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help === true) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port ?? '8079');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got "${values.port}"`);
  const replicaLagMs = Number(values['replica-lag-ms'] ?? '0');
  if (!Number.isInteger(replicaLagMs) || replicaLagMs < 0)
    throw new Error(`--replica-lag-ms must be a whole number, got "${values['replica-lag-ms']}"`);
  const givenToken = tokenFrom(values.token, values['token-file'], process.env.UPSTASH_REDIS_REST_TOKEN);

  const proxy = await startRedisRestProxy({
    redisUrl: values.redis ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    port,
    host: values.host ?? '127.0.0.1',
    token: givenToken,
    allowAdmin: values['allow-admin'] === true,
    cluster: values.cluster === true,
    replicaLagMs,
  });
  console.log(`UPSTASH_REDIS_REST_URL=${proxy.url}`);
  // A token the caller chose is never echoed; a generated one is shown once so it can be used at all.
  if (givenToken === undefined) console.log(`UPSTASH_REDIS_REST_TOKEN=${proxy.token}`);
  if (replicaLagMs > 0) console.log(`reads come from a replica ${replicaLagMs} ms behind the primary (--replica-lag-ms)`);
  if (values['allow-admin'] === true) console.log('admin commands (CONFIG, SHUTDOWN, MIGRATE, …) are forwarded (--allow-admin)');

  const shutdown = (): void => {
    proxy.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

/** --token-file, else --token, else the environment; undefined means "generate one". */
function tokenFrom(flag: string | undefined, file: string | undefined, fromEnv: string | undefined): string | undefined {
  if (flag !== undefined && file !== undefined) throw new Error('give either --token or --token-file, not both');
  let token = flag ?? fromEnv;
  if (file !== undefined) {
    try {
      token = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new Error(`--token-file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (token.includes('\n')) throw new Error(`--token-file ${file} must hold the token on one line`);
  }
  if (token === '') throw new Error('the token must not be empty');
  return token;
}

main().catch((error: unknown) => {
  console.error(`redis-proxy: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(1);
});
