// Places one proxy request on the primary or the lagging replica, and says which sync token its answer carries.
import type { RedisCommand } from '../args.ts';
import type { ExecutionContext } from '../execute.ts';
import type { ProxyStats } from '../stats.ts';
import { formatSyncToken } from './sync-token.ts';

export interface Placement {
  context: ExecutionContext;
  /** The `upstash-sync-token` to answer with; undefined without a replica. */
  syncToken(): Promise<string | undefined>;
}

/**
 * With a lagging replica, as Upstash places a request on a Global database: a request of reads only (not a transaction)
 * goes to the replica once it has applied the client's token, everything else (writes, scripts, PING, INFO) to the
 * primary, whose offset afterwards is the token answered. A read answers the newer of its token and the replica's offset.
 */
export async function placeRequest(
  context: ExecutionContext,
  stats: ProxyStats,
  commands: RedisCommand[],
  token: number,
  transaction: boolean,
): Promise<Placement> {
  const routing = context.replica;
  if (routing === undefined) return { context, syncToken: () => Promise.resolve(undefined) };
  if (!transaction && routing.servesReads(commands)) {
    const reached = await routing.catchUp(token);
    if (reached !== undefined) {
      stats.replicaReads += 1;
      // The replica is one server: no cluster routing on it.
      const { cluster: _cluster, ...single } = context;
      return {
        context: { ...single, shared: routing.replica },
        syncToken: () => Promise.resolve(formatSyncToken(Math.max(token, reached))),
      };
    }
  }
  return { context, syncToken: async () => formatSyncToken(Math.max(token, await routing.writeToken())) };
}
