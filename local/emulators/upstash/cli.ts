// Runs the Upstash-compatible REST proxy alone: `npm run redis-proxy -- --redis redis://127.0.0.1:6379 --port 8079 --token <token>`.
import { parseArgs } from 'node:util';
import { startRedisRestProxy } from './index.ts';

const USAGE = `Usage: npm run redis-proxy -- [--redis <redis://url>] [--port <port>] [--host <host>] [--token <token>]

  --redis   Redis to front (default: $REDIS_URL, else redis://127.0.0.1:6379)
  --port    port to listen on (default 8079; 0 picks a free one)
  --host    address to bind (default 127.0.0.1)
  --token   bearer token clients must send (default: $UPSTASH_REDIS_REST_TOKEN, else a generated one, printed once)`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      redis: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
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
  const givenToken = values.token ?? process.env.UPSTASH_REDIS_REST_TOKEN;
  if (givenToken === '') throw new Error('--token must not be empty');

  const proxy = await startRedisRestProxy({
    redisUrl: values.redis ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    port,
    host: values.host ?? '127.0.0.1',
    token: givenToken,
  });
  console.log(`UPSTASH_REDIS_REST_URL=${proxy.url}`);
  // A token the caller chose is never echoed; a generated one is shown once so it can be used at all.
  if (givenToken === undefined) console.log(`UPSTASH_REDIS_REST_TOKEN=${proxy.token}`);

  const shutdown = (): void => {
    proxy.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  console.error(`redis-proxy: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(1);
});
