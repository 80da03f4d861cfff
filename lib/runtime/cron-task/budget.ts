// What one scheduled task may spend in one run: Redis commands (and PostgreSQL statements) counted, and wall-clock time.
import type { Clock } from '../../deps.ts';

export interface CronBudget {
  /** Records `commands` Redis commands (or SQL statements) about to be sent. */
  spend(commands: number): void;
  /** Commands still allowed; a task checks this before each batch and sizes the batch to it. */
  commandsLeft(): number;
  /** Milliseconds until the task's deadline. */
  msLeft(): number;
  /** True when either limit is reached: the task stops, saves its cursor and reports `done: false`. */
  exhausted(): boolean;
  /** Commands spent so far. */
  used(): number;
}

export function createBudget(limits: { commands: number; timeMs: number }, clock: Clock): CronBudget {
  const deadline = clock.now() + limits.timeMs;
  let spent = 0;
  return {
    spend(commands) {
      spent += commands;
    },
    commandsLeft: () => Math.max(0, limits.commands - spent),
    msLeft: () => Math.max(0, deadline - clock.now()),
    exhausted: () => spent >= limits.commands || clock.now() >= deadline,
    used: () => spent,
  };
}
