// Structured logs: one JSON object per line with an event name, ids and a correlation id — never a key, token or secret.
type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export type LogSink = (line: string) => void;

export function createJsonLogger(sink: LogSink = (line) => console.log(line), now: () => number = Date.now): Logger {
  const write = (level: string, event: string, fields: LogFields = {}) =>
    sink(JSON.stringify({ ts: new Date(now()).toISOString(), level, event, ...fields }));
  return {
    info: (event, fields) => write('info', event, fields),
    warn: (event, fields) => write('warn', event, fields),
    error: (event, fields) => write('error', event, fields),
  };
}

/** An error's class and message only: upstream error messages can embed commands, so callers pass it through `safeErrorMessage`. */
export function errorKind(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
