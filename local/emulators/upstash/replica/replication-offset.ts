// Reads a server's replication offset from `INFO replication`: the primary's after a write, the replica's before a read.
import type { Redis } from 'ioredis';
import { sendRaw } from '../redis-connection.ts';

/** The primary's `master_repl_offset`: every write it has propagated so far. */
export function primaryOffset(primary: Redis): Promise<number> {
  return infoField(primary, 'master_repl_offset');
}

/** The replica's `slave_repl_offset`: how far into the primary's stream it has applied. */
export function replicaOffset(replica: Redis): Promise<number> {
  return infoField(replica, 'slave_repl_offset');
}

async function infoField(connection: Redis, field: string): Promise<number> {
  const reply = await sendRaw(connection, 'info', ['replication']);
  const text = Buffer.isBuffer(reply) ? reply.toString('utf8') : String(reply);
  const match = new RegExp(`^${field}:(\\d+)`, 'm').exec(text);
  // A replica whose link is not up yet has no offset: nothing applied.
  return match?.[1] === undefined ? 0 : Number(match[1]);
}
