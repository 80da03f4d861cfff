// Validates an environment once per distinct bindings object, so a Workers isolate or Lambda container parses it once.
import { ConfigError, loadConfig, type Config } from '../../lib/config/index.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';

const configs = new WeakMap<object, Config>();

export function configFor(env: object): Config {
  let config = configs.get(env);
  if (config === undefined) {
    try {
      config = loadConfig(env as Record<string, string | undefined>);
    } catch (error) {
      // No deps (and no logger) exist yet; the problems name variables only, never their values.
      if (error instanceof ConfigError) createJsonLogger().error('config_invalid', { problems: error.problems.join('; ') });
      throw error;
    }
    configs.set(env, config);
  }
  return config;
}
