// The baseline: one Redis PING through the REST proxy with the app's own Upstash client, i.e. the price of one round trip.
import type { OperationBench } from '../operation.ts';

export const redisPing: OperationBench = {
  name: 'redis.ping',
  describe: 'one PING through the main REST proxy (the same @upstash/redis client the app uses)',
  async prepare(stack) {
    const client = stack.deps.redis.retrySafe;
    return async () => {
      const reply = await client.ping();
      if (reply !== 'PONG') throw new Error(`redis.ping: expected PONG, got ${String(reply)}`);
    };
  },
};
