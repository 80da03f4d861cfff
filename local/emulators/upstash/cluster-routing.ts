// What the proxy adds in front of a Redis Cluster so clients still see one keyspace, as Upstash's REST API shows them:
// keyless commands that must reach every master, and transactions pinned to the one master serving their slot.
// Keyed commands need nothing here: ioredis's Cluster client routes them by slot and follows MOVED and ASK itself.
import calculateSlot from 'cluster-key-slot';
import { Command, type Cluster, type Redis } from 'ioredis';
import { createTransactionPool, type TransactionPool } from './connection-pool.ts';
import { openRedisConnection, sendRaw } from './redis-connection.ts';
import type { PreparedCommand } from './scripts.ts';

export interface ClusterRouting {
  /** The reply of a command that must see every master (FLUSHDB, DBSIZE, KEYS, SCAN, SCRIPT …); undefined for others. */
  fanOut(command: PreparedCommand): Promise<unknown> | undefined;
  /** The transaction pool of the master serving every key of these commands, or Redis's CROSSSLOT error. */
  transactionPool(commands: PreparedCommand[]): { pool: TransactionPool } | { error: string };
  close(): void;
}

export const CROSSSLOT_ERROR = "CROSSSLOT Keys in request don't hash to the same slot";

export function createClusterRouting(cluster: Cluster, seedUrl: string): ClusterRouting {
  const pools = new Map<string, TransactionPool>();

  // Sorted by address, so a SCAN cursor names the same master on every call.
  const masters = (): Redis[] => cluster.nodes('master').sort((a, b) => nodeKey(a).localeCompare(nodeKey(b)));

  function poolOf(node: string): TransactionPool {
    let pool = pools.get(node);
    if (pool === undefined) {
      const url = new URL(seedUrl);
      [url.hostname, url.port] = splitNodeKey(node);
      pool = createTransactionPool(() => openRedisConnection(url.toString()));
      pools.set(node, pool);
    }
    return pool;
  }

  return {
    fanOut(command) {
      const everyMaster = (): Promise<unknown[]> => Promise.all(masters().map((node) => sendRaw(node, command.name, command.args)));
      const [sub = ''] = command.args;
      switch (fanOutKind(command.name, sub.toLowerCase())) {
        case 'first':
          return everyMaster().then((replies) => replies[0]);
        case 'sum':
          return everyMaster().then((replies) => replies.reduce<number>((total, reply) => total + Number(reply), 0));
        case 'concat':
          return everyMaster().then((replies) => (replies as unknown[][]).flat());
        case 'all-of':
          return everyMaster().then((replies) =>
            (replies as number[][]).reduce((all, each) => all.map((flag, i) => (flag === 1 && each[i] === 1 ? 1 : 0))),
          );
        case 'scan':
          return scanAcross(masters(), command.args);
        default:
          return undefined;
      }
    },
    transactionPool(commands) {
      const slots = new Set(commands.flatMap((command) => keysOf(command).map((key) => calculateSlot(key))));
      if (slots.size > 1) return { error: CROSSSLOT_ERROR };
      const [slot] = slots;
      const node = slot === undefined ? nodeKey(masters()[0]) : cluster.slots[slot]?.[0];
      if (node === undefined) return { error: 'CLUSTERDOWN Hash slot not served' };
      return { pool: poolOf(node) };
    },
    close() {
      for (const pool of pools.values()) pool.close();
      pools.clear();
    },
  };
}

type FanOutKind = 'first' | 'sum' | 'concat' | 'all-of' | 'scan' | undefined;

function fanOutKind(name: string, sub: string): FanOutKind {
  if (name === 'flushdb' || name === 'flushall') return 'first';
  if (name === 'dbsize') return 'sum';
  if (name === 'keys') return 'concat';
  if (name === 'scan') return 'scan';
  // A script loaded on one master only would answer NOSCRIPT on the others.
  if (name === 'script' && (sub === 'load' || sub === 'flush')) return 'first';
  if (name === 'script' && sub === 'exists') return 'all-of';
  return undefined;
}

/**
 * One SCAN over every master in turn. The client's cursor packs the master's index with that master's own cursor
 * (cursor × masters + index), so cursor 0 starts at the first master and 0 comes back only after the last one.
 */
async function scanAcross(nodes: Redis[], args: string[]): Promise<unknown> {
  const [cursorText = '0', ...options] = args;
  if (!/^\d+$/.test(cursorText)) throw replyError('ERR invalid cursor');
  const count = BigInt(nodes.length);
  const cursor = BigInt(cursorText);
  const index = Number(cursor % count);
  const node = nodes[index];
  if (node === undefined) throw replyError('ERR invalid cursor');
  const [next, keys] = (await sendRaw(node, 'scan', [String(cursor / count), ...options])) as [Buffer, Buffer[]];
  const nodeNext = BigInt(next.toString());
  const packed = nodeNext !== 0n ? nodeNext * count + BigInt(index) : index + 1 < nodes.length ? BigInt(index + 1) : 0n;
  return [Buffer.from(packed.toString()), keys];
}

/** Shaped like Redis's own error replies, so the client sees an error answer rather than the proxy failing. */
function replyError(message: string): Error {
  return Object.assign(new Error(message), { name: 'ReplyError' });
}

function keysOf(command: PreparedCommand): string[] {
  // ioredis knows every command's key positions (EVAL's come from its numkeys argument).
  return new Command(command.name, command.args).getKeys().map(String);
}

function nodeKey(node: Redis | undefined): string {
  return node === undefined ? '' : `${node.options.host}:${node.options.port}`;
}

function splitNodeKey(node: string): [string, string] {
  const colon = node.lastIndexOf(':');
  return [node.slice(0, colon), node.slice(colon + 1)];
}
