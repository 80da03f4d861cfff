// The noisy tenant of the ratelimit bench, in a process of its own (its own isolate and event loop, as another
// instance of the service would be): callers flooding one organisation's read until stdin closes, then its counts.
import { composeApp } from '../local/stack/app.ts';
import { createJsonLogger } from '../lib/log/logger.ts';
import { NoCount } from './operations/rate-limit.ts';
import { mintToken } from '../local/stack/tokens.ts';

const { env, organizationId, userIds, jwtSecret, callers, limited } = JSON.parse(process.env.RATE_LIMIT_FLOOD ?? '{}') as {
  env: Record<string, string>;
  organizationId: string;
  /** The tenant's own admins, so the flood spends the tenant's limit (an outsider's refused calls are given back). */
  userIds: string[];
  jwtSecret: string;
  callers: number;
  /** false: an isolate whose limiter never counts, for the figure without limits. */
  limited: boolean;
};

const { request } = composeApp(env, { logger: createJsonLogger(() => undefined), ...(limited ? {} : { rateLimits: new NoCount() }) });
const tokens = await Promise.all(userIds.map((userId) => mintToken(jwtSecret, { userId, expiresInSeconds: 3_600 })));
const counts = { admitted: 0, refused: 0 };
let running = true;
process.stdin.on('end', () => (running = false));
process.stdin.resume();
process.stdout.write('ready\n');
await Promise.all(
  Array.from({ length: callers }, async (_, caller) => {
    for (let i = caller; running; i += callers) {
      const response = await request('GET', `/orgs/${organizationId}/members/count`, { token: tokens[i % tokens.length]! });
      await response.arrayBuffer();
      if (response.status === 429) counts.refused += 1;
      else counts.admitted += 1;
    }
  }),
);
process.stdout.write(`${JSON.stringify(counts)}\n`);
