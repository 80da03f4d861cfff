// The commands a replica may answer: those Redis itself flags `readonly` (and not `write`), asked of the primary once.
import type { Redis } from 'ioredis';
import { sendRaw } from '../redis-connection.ts';

/**
 * EVAL and EVALSHA carry neither flag, so every script goes to the primary, as Upstash sends them; so do PING and INFO.
 * A command renamed away (the 6.0 ceiling) is missing here and goes to the primary, which refuses it.
 */
export async function readOnlyCommands(primary: Redis): Promise<ReadonlySet<string>> {
  const reply = await sendRaw(primary, 'command', []);
  const names = new Set<string>();
  if (!Array.isArray(reply)) return names;
  for (const entry of reply as unknown[]) {
    if (!Array.isArray(entry)) continue;
    const [name, , flags] = entry as [unknown, unknown, unknown];
    if (!Array.isArray(flags)) continue;
    const flagNames = (flags as unknown[]).map((flag) => String(flag));
    if (flagNames.includes('readonly') && !flagNames.includes('write')) names.add(String(name).toLowerCase());
  }
  return names;
}
