// Remembers what the launcher started and stops it in reverse order, each part once, even if one of them fails.
export interface StopStack {
  /** Registers a part that is now running. */
  push(name: string, stop: () => Promise<void>): void;
  /** Names of the running parts, in the order they will be stopped. */
  names(): string[];
  /** Stops everything pushed so far, newest first; resolves false if any part failed to stop. */
  stopAll(log: (line: string) => void): Promise<boolean>;
}

export function createStopStack(): StopStack {
  const parts: Array<{ name: string; stop: () => Promise<void> }> = [];
  return {
    push(name, stop) {
      parts.push({ name, stop });
    },
    names: () => parts.map((part) => part.name).reverse(),
    async stopAll(log) {
      let clean = true;
      for (let part = parts.pop(); part !== undefined; part = parts.pop()) {
        try {
          await part.stop();
          log(`stopped ${part.name}`);
        } catch (error) {
          clean = false;
          log(`could not stop ${part.name}: ${(error as Error).message}`);
        }
      }
      return clean;
    },
  };
}
