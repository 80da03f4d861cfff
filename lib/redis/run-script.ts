// Runs a declared Lua script by EVALSHA with an EVAL fallback on NOSCRIPT: the script text crosses the wire once per Redis restart.
import type { Redis } from '@upstash/redis/cloudflare';
import { redisCall } from './errors.ts';
import type { LuaScript } from './lua-script.ts';
import { scriptWire } from './script-wire.ts';

// Not on @upstash/redis's createScript: a Script binds one client (we run three) and shows its SHA only in a deprecated field.

const shaCache = new Map<string, Promise<string>>();

export function scriptSha(script: LuaScript): Promise<string> {
  let sha = shaCache.get(script.source);
  if (sha === undefined) {
    sha = crypto.subtle
      .digest('SHA-1', new TextEncoder().encode(script.source))
      .then((digest) => Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join(''));
    shaCache.set(script.source, sha);
  }
  return sha;
}

interface RunScriptOptions {
  /**
   * Send the body with EVAL at once. For rare compensation paths that run while Redis is struggling: a cold
   * EVALSHA there costs a second round trip (NOSCRIPT, then EVAL) that may not fit in the deadline.
   */
  sendBody?: boolean;
}

/** `runScript(client, THROTTLE_HIT, { keys: { counter: key }, args: { windowTtl: 60 } })`. */
export async function runScript<Call>(
  client: Redis,
  script: LuaScript<Call>,
  call: NoInfer<Call>,
  options: RunScriptOptions = {},
): Promise<unknown> {
  const { keys, args } = scriptWire(script, call);
  if (options.sendBody === true) return redisCall(script.name, () => client.eval(script.source, keys, args));
  const sha = await scriptSha(script);
  return redisCall(script.name, async () => {
    try {
      return await client.evalsha(sha, keys, args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
      return await client.eval(script.source, keys, args);
    }
  });
}
