// A TCP relay between a replica and its primary that holds every byte from the primary for `lagMs`: Redis's own
// replication, lagging by a set time (Redis has no setting for that).
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LaggingLink {
  /** The loopback port a replica is pointed at (REPLICAOF 127.0.0.1 <port>). */
  port: number;
  /**
   * Stops passing the primary's stream on until `release()`, as a read region cut off for a while: what the primary
   * sends meanwhile waits, then follows in order, each chunk still `lagMs` late. Lets a test make a stale read certain.
   */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startLaggingLink(primary: { host: string; port: number }, lagMs: number): Promise<LaggingLink> {
  const sockets = new Set<Socket>();
  let held: Array<() => void> | undefined;
  const later = (send: () => void): void => {
    if (held === undefined) setTimeout(send, lagMs);
    else held.push(send);
  };
  const server: Server = createServer((replicaSide) => {
    const primarySide = createConnection(primary);
    for (const socket of [replicaSide, primarySide]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    // The replica's handshake and ACKs go on at once; only what the primary sends (the snapshot, then every write) waits.
    replicaSide.on('data', (chunk) => primarySide.write(chunk));
    // Timers of one duration fire in the order they were set, so the stream keeps its order.
    primarySide.on('data', (chunk) => later(() => replicaSide.destroyed || replicaSide.write(chunk)));
    replicaSide.once('close', () => primarySide.destroy());
    primarySide.once('close', () => setTimeout(() => replicaSide.destroy(), lagMs));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const send of waiting) setTimeout(send, lagMs);
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
