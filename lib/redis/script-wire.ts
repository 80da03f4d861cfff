// A call by name turned into what EVAL and EVALSHA take: KEYS and ARGV in the order the script declares them.
import type { LuaScript } from './lua-script.ts';

export interface ScriptWire {
  keys: string[];
  args: string[];
}

type LooseCall = { keys?: Readonly<Record<string, unknown>>; args?: Readonly<Record<string, unknown>> };

/**
 * Declared names first, in order, then the rest list when the script has one. Arguments become text with String(),
 * as every caller wrote by hand before. A name with no value is a caller's bug, refused rather than sent as "undefined".
 */
export function scriptWire<Call>(script: LuaScript<Call>, call: NoInfer<Call>): ScriptWire {
  const { keys = {}, args = {} } = call as LooseCall;
  return {
    keys: [...script.keys.map((name) => text(script, name, keys[name])), ...rest(script, script.restKeys, keys)],
    args: [...script.args.map((name) => text(script, name, args[name])), ...rest(script, script.restArgs, args)],
  };
}

function rest(script: LuaScript, name: string | undefined, values: Readonly<Record<string, unknown>>): string[] {
  if (name === undefined) return [];
  const list = values[name];
  if (!Array.isArray(list)) throw new TypeError(`${script.name}: ${name} is not a list`);
  return list.map((value: unknown) => text(script, name, value));
}

function text(script: LuaScript, name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new TypeError(`${script.name}: no ${name}`);
}
