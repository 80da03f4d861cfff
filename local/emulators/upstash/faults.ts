// Switchable fault injection, so tests and benchmarks can make the proxy refuse, stall or fail chosen commands.
export interface ProxyFaultSettings {
  /** Destroy every incoming connection without an answer (a network error for the client). */
  refuse?: boolean;
  /** Hold every request this long before handling it. */
  delayMs?: number;
  /** Lowercase command names (e.g. 'evalsha'); each matching command answers "ERR injected fault". */
  failCommands?: string[];
  /**
   * Substrings: a command any of whose arguments (a key or a value) contains one answers "ERR injected fault", so some
   * items of one pipeline fail and the rest run (e.g. the denylist SET of one chosen session id).
   */
  failArgsContaining?: string[];
}

export const INJECTED_FAULT_ERROR = 'ERR injected fault';

export interface FaultSwitch {
  /** Replaces the current settings as a whole. */
  set(settings: ProxyFaultSettings): void;
  clear(): void;
  readonly refuse: boolean;
  readonly delayMs: number;
  /** Whether this command is to fail: by its name (failCommands) or an argument (failArgsContaining). */
  fails(command: { name: string; args: readonly string[] }): boolean;
}

export function createFaultSwitch(onRefuse: () => void): FaultSwitch {
  let current: ProxyFaultSettings = {};
  let failing = new Set<string>();
  let failingArgs: string[] = [];
  return {
    set(settings) {
      current = { ...settings };
      failing = new Set((settings.failCommands ?? []).map((name) => name.toLowerCase()));
      failingArgs = (settings.failArgsContaining ?? []).filter((part) => part !== '');
      // Keep-alive sockets opened before the switch would otherwise still be served.
      if (current.refuse === true) onRefuse();
    },
    clear() {
      current = {};
      failing = new Set();
      failingArgs = [];
    },
    get refuse() {
      return current.refuse === true;
    },
    get delayMs() {
      return Math.max(0, current.delayMs ?? 0);
    },
    fails(command) {
      if (failing.has(command.name)) return true;
      return failingArgs.some((part) => command.args.some((arg) => arg.includes(part)));
    },
  };
}
