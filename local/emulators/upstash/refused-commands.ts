// Names the commands the proxy will not forward: those that would block or change the state of a shared connection,
// and (unless the proxy runs with allowAdmin) those that reconfigure or stop the server or reach other hosts.
import type { RedisCommand } from './args.ts';

const BLOCKING = new Set(['blpop', 'brpop', 'brpoplpush', 'blmove', 'blmpop', 'bzpopmin', 'bzpopmax', 'bzmpop', 'wait', 'waitaof']);
const BLOCKING_WITH_OPTION = new Set(['xread', 'xreadgroup']);
const TRANSACTION = new Set(['multi', 'exec', 'discard', 'watch', 'unwatch']);
// MONITOR, SYNC and PSYNC would also leak every command and the whole dataset; they stay refused even with allowAdmin.
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

/** Whole commands refused without allowAdmin, and why. */
const ADMIN_COMMANDS: Record<string, string> = {
  config: 'CONFIG SET dir/dbfilename + SAVE writes a file anywhere; CONFIG GET requirepass reads the password',
  debug: 'DEBUG SEGFAULT / RELOAD / SLEEP crash, rewrite or stall the server',
  module: 'MODULE LOAD runs a shared library from disk inside the server',
  shutdown: 'stops the server',
  replicaof: 'connects to another host and replaces every key with its copy',
  slaveof: 'the old name of REPLICAOF',
  migrate: 'connects to another host and moves keys there',
  failover: "hands the server's role to a replica, another host",
  replconf: 'part of the replication handshake, never a client command',
};

/** Commands where only some subcommands are refused without allowAdmin: the listed subcommands stay allowed. */
const ADMIN_SUBCOMMANDS_ALLOWED: Record<string, Set<string>> = {
  // LIST and GETUSER show password hashes; SETUSER, DELUSER, LOAD, SAVE change who may connect; LOG shows client addresses.
  acl: new Set(['cat', 'whoami', 'users', 'genpass', 'dryrun', 'help']),
  // KILL cuts the proxy's own connections and PAUSE stops the server answering; these only read.
  client: new Set(['list', 'info', 'id', 'getname', 'getredir', 'trackinginfo', 'unpause', 'help']),
  // MEET, FORGET, REPLICATE and the slot writes reach other nodes or rewrite the cluster; these only read.
  cluster: new Set([
    'info',
    'keyslot',
    'nodes',
    'slots',
    'shards',
    'myid',
    'myshardid',
    'countkeysinslot',
    'getkeysinslot',
    'links',
    'help',
  ]),
};

// Deliberately still allowed: SAVE, BGSAVE and BGREWRITEAOF write only into the folder Redis was started with (moving
// it needs CONFIG); FLUSHALL, FLUSHDB and SWAPDB are data commands Upstash offers too; SCRIPT and FUNCTION are needed
// beside EVAL; INFO, LATENCY, SLOWLOG, MEMORY, OBJECT and LASTSAVE read or reset statistics only. Inside a script Redis
// itself refuses CONFIG, DEBUG, SHUTDOWN, MODULE, REPLICAOF, ACL, CLIENT, FAILOVER and SAVE (they are `noscript`);
// MIGRATE is not, which is why a redis-server this project starts has MIGRATE disabled (local/processes/redis-server.ts).

export interface RefusalPolicy {
  /** Forward the admin commands too (`--allow-admin`). */
  allowAdmin: boolean;
}

/** Why the proxy refuses this command, as a Redis-style error, or undefined when it may run. */
export function refusalReason(command: RedisCommand, policy: RefusalPolicy): string | undefined {
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
  if (policy.allowAdmin) return undefined;
  const refusedAdmin = adminCommandName(command);
  return refusedAdmin === undefined ? undefined : noPermission(refusedAdmin);
}

/** `config`, or `acl|setuser` for a refused subcommand (Redis's own notation), or undefined when not an admin command. */
function adminCommandName({ name, args }: RedisCommand): string | undefined {
  if (ADMIN_COMMANDS[name] !== undefined) return name;
  const partly = ADMIN_SUBCOMMANDS_ALLOWED[name];
  if (partly === undefined) return undefined;
  const subcommand = args[0]?.toLowerCase() ?? '';
  return partly.has(subcommand) ? undefined : `${name}|${subcommand}`;
}

/**
 * Upstash answers a command the token may not run with HTTP 400 and this NOPERM text (the same as Redis's ACL
 * refusal), so clients already treat it as a refusal rather than an outage.
 */
function noPermission(command: string): string {
  return (
    `NOPERM this user has no permissions to run the '${command}' command or its subcommand ` +
    '(the local proxy refuses commands that reconfigure or stop Redis or reach other hosts; start it with --allow-admin to allow them)'
  );
}
