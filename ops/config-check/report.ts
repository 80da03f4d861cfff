// What `npm run config:check` prints for an environment: every problem loadConfig finds, in words, names and never values.
import { APP_ENVS, ConfigError, loadConfig } from '../../lib/config/index.ts';

export interface ConfigReport {
  ok: boolean;
  text: string;
}

export function configReport(env: Record<string, string | undefined>): ConfigReport {
  // Named only when it is one of the four: whatever else was set is a value, and not repeated.
  const given = env.APP_ENV || 'dev';
  const appEnv = (APP_ENVS as readonly string[]).includes(given) ? `APP_ENV=${given}` : 'this APP_ENV';
  try {
    loadConfig(env);
    return { ok: true, text: `config:check: the configuration is valid for ${appEnv}` };
  } catch (error) {
    // Anything else is a defect of the check itself: its name only, as its message could quote a value.
    if (!(error instanceof ConfigError)) return { ok: false, text: `config:check: the check itself failed (${(error as Error).name})` };
    const count = error.problems.length === 1 ? '1 problem' : `${error.problems.length} problems`;
    return { ok: false, text: [`config:check: ${count} for ${appEnv}:`, ...error.problems.map((p) => `  - ${p}`)].join('\n') };
  }
}
