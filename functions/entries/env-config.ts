// Validates an environment once per distinct bindings object, so a Workers isolate or Lambda container parses it once.
import { loadConfig, type Config } from '../../lib/config/index.ts';

const configs = new WeakMap<object, Config>();

export function configFor(env: object): Config {
  let config = configs.get(env);
  if (config === undefined) {
    config = loadConfig(env as Record<string, string | undefined>);
    configs.set(env, config);
  }
  return config;
}
