// Which server answers a request when the proxy has a lagging replica, and the sync token that orders one client's reads.
import type { Redis } from 'ioredis';
import type { RedisCommand } from '../args.ts';
import { readOnlyCommands } from './read-only-commands.ts';
import { primaryOffset, replicaOffset } from './replication-offset.ts';
import { startLaggingReplica } from './start-replica.ts';

export interface ReplicaRouting {
  /** The replica's connection, for requests whose every command is a read. */
  replica: Redis;
  lagMs: number;
  /** Whether the replica may answer these commands: all of them reads, and not a transaction. */
  servesReads(commands: RedisCommand[]): boolean;
  /**
   * Waits until the replica has applied the primary's stream up to `token` and answers the offset it reached; undefined
   * when it did not get there within the lag and a margin (its link is down), so the read goes to the primary instead.
   */
  catchUp(token: number): Promise<number | undefined>;
  /** The primary's offset after a write: the token that write's client sends with its next read. */
  writeToken(): Promise<number>;
  hold(): void;
  release(): void;
  stop(): Promise<void>;
}

// How long past the lag a read waits for its token before the primary answers it instead.
const CATCH_UP_MARGIN_MS = 2_000;
const POLL_MS = 2;

export async function startReplicaRouting(primaryUrl: string, primary: Redis, lagMs: number): Promise<ReplicaRouting> {
  const readOnly = await readOnlyCommands(primary);
  const replica = await startLaggingReplica(primaryUrl, lagMs);
  // The replica only moves forward, so an offset once seen spares the next read with an older token a round trip.
  let reached = 0;
  const observe = async (): Promise<number> => {
    reached = Math.max(reached, await replicaOffset(replica.connection));
    return reached;
  };
  return {
    replica: replica.connection,
    lagMs,
    servesReads: (commands) => commands.length > 0 && commands.every((command) => readOnly.has(command.name)),
    async catchUp(token) {
      if (token <= reached) return reached;
      const deadline = Date.now() + lagMs + CATCH_UP_MARGIN_MS;
      // A replica that cannot be asked (stopping, its server gone) is one that has not caught up.
      while ((await observe().catch(() => -1)) < token) {
        if (Date.now() > deadline) return undefined;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      return reached;
    },
    writeToken: () => primaryOffset(primary),
    hold: () => replica.hold(),
    release: () => replica.release(),
    stop: () => replica.stop(),
  };
}
