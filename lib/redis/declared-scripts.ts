// Every script declared so far (defineScript adds each), so the tests can hold all of them to Redis 6.0, their
// prologues and their SHAs without a hand-kept list that a new script could be missing from.
import type { LuaScript } from './lua-script.ts';

const declared: LuaScript[] = [];

export function declareScript(script: LuaScript): void {
  declared.push(script);
}

/** The scripts of every module loaded so far, in the order they were declared. */
export function declaredScripts(): readonly LuaScript[] {
  return [...declared];
}
