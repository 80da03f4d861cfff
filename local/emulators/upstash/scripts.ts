// Lets stock Redis run Upstash-flavoured Lua: strips `allow-key-locking` from the shebang and maps client SHAs to Redis SHAs.
import { createHash } from 'node:crypto';
import type { RedisCommand } from './args.ts';

/** A command as it will be sent to Redis, plus how to present its reply to the client. */
export interface PreparedCommand {
  name: string;
  args: string[];
  mapReply(reply: unknown): unknown;
}

export interface ScriptRegistry {
  /** Rewrites EVAL / EVALSHA / SCRIPT LOAD / SCRIPT EXISTS; every other command passes unchanged. */
  prepare(command: RedisCommand): PreparedCommand;
  /** The text (as sent to Redis) of a script this proxy has seen in EVAL or SCRIPT LOAD, by the SHA Redis knows it by. */
  scriptText(redisSha: string): string | undefined;
}

const UNSUPPORTED_FLAG = 'allow-key-locking';
// Scripts are few; the cap only keeps a misbehaving caller from growing the map without end.
const MAX_MAPPED_SCRIPTS = 10_000;

export function createScriptRegistry(): ScriptRegistry {
  const redisShaByClientSha = new Map<string, string>();
  const textByRedisSha = new Map<string, string>();

  // A cluster caches scripts per master: a text seen once lets the proxy load it wherever an EVALSHA lands.
  function remember(script: string): void {
    if (textByRedisSha.size >= MAX_MAPPED_SCRIPTS) textByRedisSha.clear();
    textByRedisSha.set(sha1Hex(script), script);
  }

  function rewrite(script: string): { script: string; clientSha?: string } {
    const stripped = stripUnsupportedFlags(script);
    if (stripped === script) return { script };
    const clientSha = sha1Hex(script);
    if (redisShaByClientSha.size >= MAX_MAPPED_SCRIPTS) redisShaByClientSha.clear();
    redisShaByClientSha.set(clientSha, sha1Hex(stripped));
    return { script: stripped, clientSha };
  }

  // An unmapped SHA goes to Redis unchanged, so Redis answers NOSCRIPT and the client falls back to EVAL.
  const redisSha = (sha: string): string => redisShaByClientSha.get(sha.toLowerCase()) ?? sha;

  return {
    prepare(command) {
      const { name, args } = command;
      const [first, second, ...rest] = args;
      if ((name === 'eval' || name === 'eval_ro') && first !== undefined) {
        const { script } = rewrite(first);
        remember(script);
        return prepared(name, [script, ...args.slice(1)]);
      }
      if ((name === 'evalsha' || name === 'evalsha_ro') && first !== undefined) {
        return prepared(name, [redisSha(first), ...args.slice(1)]);
      }
      if (name === 'script' && first?.toLowerCase() === 'load' && second !== undefined) {
        const { script, clientSha } = rewrite(second);
        remember(script);
        // The client compares SCRIPT LOAD's answer with the SHA-1 of the text it sent.
        const answer = clientSha === undefined ? identity : (reply: unknown) => (Buffer.isBuffer(reply) ? Buffer.from(clientSha) : reply);
        return { name, args: [first, script, ...rest], mapReply: answer };
      }
      if (name === 'script' && first?.toLowerCase() === 'exists') {
        return prepared(name, [first, ...args.slice(1).map(redisSha)]);
      }
      return prepared(name, args);
    },
    scriptText: (redisSha) => textByRedisSha.get(redisSha.toLowerCase()),
  };
}

/**
 * Removes `allow-key-locking` from a `#!lua flags=...` first line. When no flag is left the line becomes empty
 * (not `#!lua`), which keeps line numbers in error messages and also runs on Redis before 7.0.
 */
export function stripUnsupportedFlags(script: string): string {
  if (!script.startsWith('#!lua')) return script;
  const lineEnd = script.indexOf('\n');
  const firstLine = lineEnd === -1 ? script : script.slice(0, lineEnd);
  const tokens = firstLine
    .slice('#!lua'.length)
    .trim()
    .split(/\s+/)
    .filter((token) => token !== '');
  const flagsToken = tokens.find((token) => token.startsWith('flags='));
  if (flagsToken === undefined) return script;
  const flags = flagsToken
    .slice('flags='.length)
    .split(',')
    .filter((flag) => flag !== '');
  if (!flags.includes(UNSUPPORTED_FLAG)) return script;
  const keptFlags = flags.filter((flag) => flag !== UNSUPPORTED_FLAG);
  const otherTokens = tokens.filter((token) => token !== flagsToken);
  const newLine =
    keptFlags.length === 0 && otherTokens.length === 0
      ? ''
      : ['#!lua', ...otherTokens, ...(keptFlags.length > 0 ? [`flags=${keptFlags.join(',')}`] : [])].join(' ');
  return lineEnd === -1 ? newLine : newLine + script.slice(lineEnd);
}

export function sha1Hex(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

function prepared(name: string, args: string[]): PreparedCommand {
  return { name, args, mapReply: identity };
}

function identity(reply: unknown): unknown {
  return reply;
}
