// An ordered list of clean-up steps (stop servers, drop the scratch database), run once, in reverse, even after a failure.
export interface Teardown {
  add(step: () => Promise<void>): void;
  /** Runs every step added so far, newest first; a failing step is reported and the rest still run. */
  run(): Promise<void>;
}

export function createTeardown(report: (message: string) => void = (message) => console.error(message)): Teardown {
  const steps: Array<() => Promise<void>> = [];
  return {
    add(step) {
      steps.push(step);
    },
    async run() {
      for (const step of steps.splice(0).reverse()) {
        await step().catch((error: unknown) => report(`bench clean-up step failed: ${(error as Error).message}`));
      }
    },
  };
}
