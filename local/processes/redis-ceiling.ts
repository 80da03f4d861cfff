// The Redis 6.0 command ceiling as data: every command newer than 6.0, so a redis-server we start can rename them away.

/**
 * Top-level commands added after Redis 6.0, with the release that added each. Through 7.0 the list is the
 * `since` field of Redis 7.0's own `COMMAND DOCS` (test/integration/redis-ceiling.test.ts holds it to that);
 * 7.2–8.0 from their release notes. Subcommands (CLIENT INFO, CLUSTER SHARDS, …) and options on older commands
 * (SET … GET, ZRANGE BYSCORE, ZADD GT/LT, EXPIRE NX, Lua shebang flags) cannot be renamed: the static checks in
 * test/unit/redis-ceiling.test.ts and test/unit/lua-scripts.test.ts hold those.
 */
export const COMMANDS_NEWER_THAN_6_0: Readonly<Record<string, string>> = {
  blmove: '6.2.0',
  copy: '6.2.0',
  failover: '6.2.0',
  geosearch: '6.2.0',
  geosearchstore: '6.2.0',
  getdel: '6.2.0',
  getex: '6.2.0',
  hrandfield: '6.2.0',
  lmove: '6.2.0',
  reset: '6.2.0',
  smismember: '6.2.0',
  xautoclaim: '6.2.0',
  zdiff: '6.2.0',
  zdiffstore: '6.2.0',
  zinter: '6.2.0',
  zmscore: '6.2.0',
  zrandmember: '6.2.0',
  zrangestore: '6.2.0',
  zunion: '6.2.0',
  blmpop: '7.0.0',
  bzmpop: '7.0.0',
  eval_ro: '7.0.0',
  evalsha_ro: '7.0.0',
  expiretime: '7.0.0',
  fcall: '7.0.0',
  fcall_ro: '7.0.0',
  function: '7.0.0',
  lcs: '7.0.0',
  lmpop: '7.0.0',
  pexpiretime: '7.0.0',
  sintercard: '7.0.0',
  sort_ro: '7.0.0',
  spublish: '7.0.0',
  ssubscribe: '7.0.0',
  sunsubscribe: '7.0.0',
  zintercard: '7.0.0',
  zmpop: '7.0.0',
  waitaof: '7.2.0',
  hexpire: '7.4.0',
  hexpireat: '7.4.0',
  hexpiretime: '7.4.0',
  hpersist: '7.4.0',
  hpexpire: '7.4.0',
  hpexpireat: '7.4.0',
  hpexpiretime: '7.4.0',
  hpttl: '7.4.0',
  httl: '7.4.0',
  hgetdel: '8.0.0',
  hgetex: '8.0.0',
  hsetex: '8.0.0',
};

/** `major.minor.patch` as a comparable triple; anything unparsable counts as 0. */
function versionParts(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  return [major, minor, patch];
}

export function versionAtMost(version: string, limit: string): boolean {
  const [a, b] = [versionParts(version), versionParts(limit)];
  for (let index = 0; index < 3; index += 1) if (a[index] !== b[index]) return a[index]! < b[index]!;
  return true;
}

/**
 * The commands newer than 6.0 that a server of `serverVersion` has, so renaming them cannot fail its start
 * (redis-server refuses `rename-command` of a command it does not know).
 */
export function ceilingCommandsFor(serverVersion: string): string[] {
  return Object.entries(COMMANDS_NEWER_THAN_6_0)
    .filter(([, since]) => versionAtMost(since, serverVersion))
    .map(([name]) => name);
}

/** The version in `redis-server --version` output (`Redis server v=7.0.15 sha=…`), or undefined. */
export function parseServerVersion(versionOutput: string): string | undefined {
  return /\bv=(\d+\.\d+\.\d+)/.exec(versionOutput)?.[1];
}

/** The command a `rename-command` line named when redis-server refused it as unknown (forks may lack some), or undefined. */
export function refusedRename(stderr: string): string | undefined {
  if (!stderr.includes('No such command in rename-command')) return undefined;
  return /'rename-command (\S+) ""'/.exec(stderr)?.[1]?.toLowerCase();
}
