// Turns the JSON bodies of Upstash REST requests into Redis commands (name plus string arguments), or a 400 reason.
export interface RedisCommand {
  /** Lowercase command name, e.g. `set`; Redis itself is case-insensitive. */
  name: string;
  args: string[];
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** One command: `["set","k","v","ex",100]`. */
export function parseCommand(raw: unknown): Parsed<RedisCommand> {
  if (!Array.isArray(raw)) return fail('ERR the body must be a JSON array like ["set","key","value"]');
  if (raw.length === 0) return fail('ERR empty command');
  const parts: string[] = [];
  for (const item of raw) {
    const text = argumentText(item);
    if (text === undefined) return fail(`ERR unsupported argument (${describe(item)}): only strings, numbers and booleans are allowed`);
    parts.push(text);
  }
  const [name = '', ...args] = parts;
  if (name === '') return fail('ERR empty command name');
  return { ok: true, value: { name: name.toLowerCase(), args } };
}

/** A pipeline or transaction: `[["set","k","v"],["get","k"]]`. */
export function parseCommandList(raw: unknown): Parsed<RedisCommand[]> {
  if (!Array.isArray(raw)) return fail('ERR the body must be a JSON array of commands like [["set","key","value"]]');
  if (raw.length === 0) return fail('ERR empty pipeline');
  const commands: RedisCommand[] = [];
  for (const [index, item] of raw.entries()) {
    if (!Array.isArray(item)) return fail(`ERR command ${index + 1} is not a JSON array`);
    const parsed = parseCommand(item);
    if (!parsed.ok) return fail(`${parsed.error} (command ${index + 1})`);
    commands.push(parsed.value);
  }
  return { ok: true, value: commands };
}

function argumentText(item: unknown): string | undefined {
  if (typeof item === 'string') return item;
  // String(n) gives "1000000" where a float formatter might give "1e+06".
  if (typeof item === 'number') return String(item);
  if (typeof item === 'boolean') return item ? 'true' : 'false';
  return undefined;
}

function describe(item: unknown): string {
  if (item === null) return 'null';
  if (Array.isArray(item)) return 'nested array';
  return typeof item === 'object' ? 'nested object' : typeof item;
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
