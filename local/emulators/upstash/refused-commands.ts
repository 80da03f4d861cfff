// Names the commands the proxy will not forward, because they would block or change the state of a shared connection.
import type { RedisCommand } from './args.ts';

const BLOCKING = new Set(['blpop', 'brpop', 'brpoplpush', 'blmove', 'blmpop', 'bzpopmin', 'bzpopmax', 'bzmpop', 'wait', 'waitaof']);
const BLOCKING_WITH_OPTION = new Set(['xread', 'xreadgroup']);
const TRANSACTION = new Set(['multi', 'exec', 'discard', 'watch', 'unwatch']);
const CONNECTION_STATE = new Set([
  'select',
  'auth',
  'hello',
  'quit',
  'reset',
  'readonly',
  'readwrite',
  'monitor',
  'sync',
  'psync',
  'subscribe',
  'psubscribe',
  'ssubscribe',
  'unsubscribe',
  'punsubscribe',
  'sunsubscribe',
]);
const CLIENT_STATE = new Set(['reply', 'setname', 'setinfo', 'tracking', 'caching', 'no-evict', 'no-touch']);

/** Why the proxy refuses this command, as a Redis-style error, or undefined when it may run. */
export function refusalReason(command: RedisCommand): string | undefined {
  const { name, args } = command;
  if (BLOCKING.has(name) || (BLOCKING_WITH_OPTION.has(name) && args.some((arg) => arg.toLowerCase() === 'block'))) {
    return `ERR blocking command '${name}' is not supported over REST (it would stall the shared Redis connection)`;
  }
  if (TRANSACTION.has(name)) {
    return `ERR '${name}' is not supported as a command over REST; send the commands to POST /multi-exec instead`;
  }
  if (CONNECTION_STATE.has(name) || (name === 'client' && CLIENT_STATE.has(args[0]?.toLowerCase() ?? ''))) {
    return `ERR '${name}' changes connection state and is not supported over REST (the Redis connection is shared)`;
  }
  return undefined;
}
