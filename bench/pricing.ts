// Upstash pay-as-you-go pricing: what a call's billed Redis commands cost per million calls.

/**
 * Upstash pay-as-you-go: $0.20 per 100 000 commands. Upstash bills top-level commands: one script call (EVALSHA or
 * EVAL) is one command whatever it runs inside, and each entry of a pipeline or transaction is one.
 */
export const UPSTASH_USD_PER_100K_COMMANDS = 0.2;

/** Dollars per million calls of an operation that sends `commandsPerCall` billed commands (both stores together). */
export function usdPerMillionCalls(commandsPerCall: number): number {
  return ((commandsPerCall * 1_000_000) / 100_000) * UPSTASH_USD_PER_100K_COMMANDS;
}

/** The legend line every cost table prints, so no figure is read without how it was counted. */
export const BILLING_LEGEND =
  `Redis commands are billed as Upstash bills them, top-level commands: a Lua script call (EVALSHA/EVAL) counts one, ` +
  `each entry of a pipeline or transaction counts one; counted as they arrive at the main and revocation REST proxies ` +
  `(both stores are billed), priced at pay-as-you-go $${UPSTASH_USD_PER_100K_COMMANDS.toFixed(2)} per 100 000 commands`;
