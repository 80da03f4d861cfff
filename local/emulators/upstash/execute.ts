// Runs parsed commands against Redis: pipelines on the shared connection, transactions on a pooled one of their own.
import type { Cluster, Redis } from 'ioredis';
import type { ClusterRouting } from './cluster-routing.ts';
import type { RedisCommand } from './args.ts';
import type { TransactionPool } from './connection-pool.ts';
import { encodeReply, isReplyError, type JsonReply } from './encode.ts';
import { INJECTED_FAULT_ERROR, type FaultSwitch } from './faults.ts';
import { RedisUnavailableError, sendRaw } from './redis-connection.ts';
import { refusalReason } from './refused-commands.ts';
import type { ReplicaRouting } from './replica/read-routing.ts';
import type { PreparedCommand, ScriptRegistry } from './scripts.ts';

export type Outcome = { result: JsonReply } | { error: string };

export interface ExecutionContext {
  shared: Redis | Cluster;
  /** Set when `shared` is a Redis Cluster client. */
  cluster?: ClusterRouting;
  pool: TransactionPool;
  scripts: ScriptRegistry;
  faults: FaultSwitch;
  /** Forward the commands that reconfigure or stop Redis or reach other hosts (refused-commands.ts). */
  allowAdmin: boolean;
  /** A lagging replica that answers reads (`replicaLagMs`); server.ts places each request. */
  replica?: ReplicaRouting;
}

/**
 * One outcome per command, in order. Commands are written back to back on the shared connection, so Redis runs
 * them in order but not atomically. Throws RedisUnavailableError when Redis could not be reached.
 */
export async function runPipeline(context: ExecutionContext, commands: RedisCommand[], base64: boolean): Promise<Outcome[]> {
  // Prepared synchronously in order, so a SCRIPT LOAD is mapped before a later EVALSHA in the same pipeline.
  const pending = commands.map((command): Promise<Outcome> => {
    const blocked = blockedReason(context, command);
    if (blocked !== undefined) return Promise.resolve({ error: blocked });
    const prepared = context.scripts.prepare(command);
    const reply =
      context.cluster?.fanOut(prepared) ??
      sendRaw(context.shared, prepared.name, prepared.args).catch((error: unknown) => evalOnNoScript(context, prepared, error));
    return reply.then(
      (reply) => ({ result: encodeReply(prepared.mapReply(reply), base64) }),
      (error: unknown) => errorOutcome(error),
    );
  });
  return Promise.all(pending);
}

export type TransactionResult = { ok: true; outcomes: Outcome[] } | { ok: false; error: string };

/** MULTI … EXEC on a dedicated connection; a refused, faulted or badly queued command aborts the whole transaction. */
export async function runTransaction(context: ExecutionContext, commands: RedisCommand[], base64: boolean): Promise<TransactionResult> {
  for (const command of commands) {
    const blocked = blockedReason(context, command);
    if (blocked !== undefined) return { ok: false, error: blocked };
  }
  const prepared = commands.map((command) => context.scripts.prepare(command));
  const routed = context.cluster === undefined ? { pool: context.pool } : context.cluster.transactionPool(prepared);
  if ('error' in routed) return { ok: false, error: routed.error };
  const { pool } = routed;
  const connection = await pool.acquire();
  let reusable = false;
  try {
    const settled = await Promise.allSettled([
      sendRaw(connection, 'multi', []),
      ...prepared.map((command) => sendRaw(connection, command.name, command.args)),
      sendRaw(connection, 'exec', []),
    ]);
    const unreachable = settled.find((entry) => entry.status === 'rejected' && !isReplyError(entry.reason));
    if (unreachable !== undefined) throw unavailable((unreachable as PromiseRejectedResult).reason);
    const [multi, ...rest] = settled;
    const exec = rest.pop();
    if (multi === undefined || exec === undefined) throw new Error('transaction replies are missing');
    if (multi.status === 'rejected') return { ok: false, error: (multi.reason as Error).message };
    // After EXEC (even one answering EXECABORT) the connection is out of MULTI and clean.
    reusable = true;
    const queueError = rest.find((entry) => entry.status === 'rejected');
    if (exec.status === 'rejected') {
      const execError = (exec.reason as Error).message;
      const cause = queueError === undefined ? '' : `: ${(queueError.reason as Error).message}`;
      return { ok: false, error: `${execError.replace(/\.$/, '')}${cause}` };
    }
    if (!Array.isArray(exec.value)) return { ok: false, error: 'EXECABORT Transaction aborted' };
    return { ok: true, outcomes: execOutcomes(exec.value as unknown[], prepared, base64) };
  } finally {
    pool.release(connection, reusable);
  }
}

function execOutcomes(replies: unknown[], prepared: PreparedCommand[], base64: boolean): Outcome[] {
  return replies.map((reply, index) => {
    if (isReplyError(reply)) return { error: reply.message };
    const mapReply = prepared[index]?.mapReply ?? ((value: unknown) => value);
    return { result: encodeReply(mapReply(reply), base64) };
  });
}

/**
 * On a cluster each master has its own script cache, so an EVALSHA can land where the script was never loaded. Upstash
 * shows one cache; so does the proxy, running a script it has seen as EVAL on the master that lacked it.
 */
function evalOnNoScript(context: ExecutionContext, command: PreparedCommand, error: unknown): Promise<unknown> {
  const [sha, ...rest] = command.args;
  const isEvalSha = command.name === 'evalsha' || command.name === 'evalsha_ro';
  const text = context.cluster !== undefined && isEvalSha && sha !== undefined ? context.scripts.scriptText(sha) : undefined;
  if (text === undefined || !isReplyError(error) || !error.message.startsWith('NOSCRIPT')) return Promise.reject(error);
  return sendRaw(context.shared, command.name === 'evalsha' ? 'eval' : 'eval_ro', [text, ...rest]);
}

function blockedReason(context: ExecutionContext, command: RedisCommand): string | undefined {
  if (context.faults.fails(command)) return INJECTED_FAULT_ERROR;
  return refusalReason(command, { allowAdmin: context.allowAdmin });
}

function errorOutcome(error: unknown): Outcome {
  if (isReplyError(error)) return { error: error.message };
  throw unavailable(error);
}

function unavailable(error: unknown): RedisUnavailableError {
  if (error instanceof RedisUnavailableError) return error;
  return new RedisUnavailableError(`ERR the proxy could not reach Redis: ${(error as Error).message}`);
}
