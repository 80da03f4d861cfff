// The throttle primitive on its own: one hit of a fresh account's accept counter, i.e. the round trip accept's per-account throttle adds.
import { uuidv7 } from 'uuidv7';
import { throttle } from '../../lib/runtime/throttle/index.ts';
import type { OperationBench } from '../operation.ts';

export const throttleHitBench: OperationBench = {
  name: 'throttle.hit',
  roundTrips: { redis: 1, revocation: 0, pg: 0 },
  describe: 'one throttle hit (the invite-accept counter of a fresh account): the throttle script, on the throttle client',
  async prepare(stack, count) {
    // A fresh account per call, so every hit is the allowed path and the counter's first-hit EXPIRE runs each time.
    const userIds = Array.from({ length: count }, () => uuidv7());
    return async (i) => {
      const userId = userIds[i] as string;
      const outcome = await throttle.hit(stack.deps, {
        action: 'invite-accept',
        scope: { kind: 'user', id: userId },
        subject: userId,
        correlationId: 'bench',
      });
      if (!outcome.allowed) throw new Error('throttle.hit: a fresh counter refused its first hit');
    };
  },
};
