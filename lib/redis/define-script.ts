// A Lua script declared once: its name, the names of its KEYS and ARGV in order, and its source. Callers pass keys
// and arguments by those names (lib/redis/run-script.ts), and declaring a script is what lists it for the tests.
import { declareScript } from './declared-scripts.ts';
import type { LuaScript, ScriptCall } from './lua-script.ts';

export interface ScriptDeclaration<K extends string, A extends string, RK extends string, RA extends string> {
  name: string;
  keys: readonly K[];
  args: readonly A[];
  restKeys?: RK;
  restArgs?: RA;
  /** Starts with the prologue that binds every declared name (test/unit/lua-scripts.test.ts checks it). */
  source: string;
}

/** Declares a script, and so registers it (declaredScripts()): the tests hold every declared script to Redis 6.0. */
export function defineScript<
  const K extends string,
  const A extends string,
  const RK extends string = never,
  const RA extends string = never,
>(declaration: ScriptDeclaration<K, A, RK, RA>): LuaScript<ScriptCall<K, A, RK, RA>> {
  const script: LuaScript<ScriptCall<K, A, RK, RA>> = Object.freeze({
    name: declaration.name,
    keys: Object.freeze([...declaration.keys]),
    args: Object.freeze([...declaration.args]),
    ...(declaration.restKeys === undefined ? {} : { restKeys: declaration.restKeys }),
    ...(declaration.restArgs === undefined ? {} : { restArgs: declaration.restArgs }),
    source: declaration.source,
  });
  declareScript(script);
  return script;
}
