// Remembers what a stack started and stops it in reverse order, each part once, even if one of them fails.
export interface Teardown {
  /** Registers a part that is now running (a server, a process, a scratch database). */
  add(name: string, stop: () => Promise<void>): void;
  /** Names of the running parts, in the order they will be stopped. */
  names(): string[];
  /** Stops everything added so far, newest first, telling `log` how each went; resolves false if any part failed to stop. */
  run(log?: (line: string, stopped: boolean) => void): Promise<boolean>;
}

export function createTeardown(): Teardown {
  const parts: Array<{ name: string; stop: () => Promise<void> }> = [];
  return {
    add(name, stop) {
      parts.push({ name, stop });
    },
    names: () => parts.map((part) => part.name).reverse(),
    async run(log = () => undefined) {
      let clean = true;
      for (let part = parts.pop(); part !== undefined; part = parts.pop()) {
        try {
          await part.stop();
          log(`stopped ${part.name}`, true);
        } catch (error) {
          clean = false;
          log(`could not stop ${part.name}: ${(error as Error).message}`, false);
        }
      }
      return clean;
    },
  };
}
