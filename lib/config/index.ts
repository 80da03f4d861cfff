// Public surface of the configuration module.
export {
  loadConfig,
  ConfigError,
  ACCESS_TOKEN_MAX_LIFETIME_SECONDS,
  INVITE_MAX_ACTIVE_PER_ORG,
  type Config,
  type AuthConfig,
  type RestEndpoint,
} from './load.ts';
export type { SigningKey } from './signing-keys.ts';
export { loopback, type OidcProviderConfig } from './oidc-providers.ts';
export { OPERATOR_SECRET_PATTERN, type OperatorCredential } from './operator-tokens.ts';
export { HANDOFF_CLIENT_SECRET_PATTERN } from './handoff-audiences.ts';
export { APP_ENVS, type AppEnv } from './schema.ts';
