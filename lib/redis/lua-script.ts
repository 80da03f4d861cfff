// The type of a declared Lua script (lib/redis/define-script.ts) and of a call of it, by the names it declares.

/** An argument as a caller gives it; it crosses the wire as text (lib/redis/script-wire.ts). */
export type ScriptArg = string | number;

type Named<Names extends string, Value> = { readonly [Name in Names]: Value };

/** A script without keys (or without arguments) may leave that part out of a call. */
type Part<Field extends string, Names extends string, Rest extends string, Value> = [Names | Rest] extends [never]
  ? { readonly [F in Field]?: Record<string, never> }
  : { readonly [F in Field]: Named<Names, Value> & Named<Rest, readonly Value[]> };

/** What a call of a script with these names passes: `{ keys: { counter: k }, args: { windowTtl: 60 } }`. */
export type ScriptCall<K extends string, A extends string, RK extends string = never, RA extends string = never> = Part<
  'keys',
  K,
  RK,
  string
> &
  Part<'args', A, RA, ScriptArg>;

declare const callShape: unique symbol;

export interface LuaScript<Call = unknown> {
  /** Names the script in errors, logs and test reports; no two scripts share one (test/unit/lua-registry.test.ts). */
  readonly name: string;
  /** KEYS[1], KEYS[2], …: the source's prologue binds KEYS[n] to `local <name in snake_case>_key`. */
  readonly keys: readonly string[];
  /** ARGV[1], ARGV[2], …: the prologue binds ARGV[n] to `local <name in snake_case>`. */
  readonly args: readonly string[];
  /** A name for any number of KEYS after the declared ones, which the source walks from #keys + 1 to #KEYS. */
  readonly restKeys?: string;
  /** The same for ARGV. */
  readonly restArgs?: string;
  readonly source: string;
  /** Type only, never set: the call this script takes. */
  readonly [callShape]?: Call;
}
