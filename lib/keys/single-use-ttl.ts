// The lifetimes of the single-use tokens (docs/design/single-use.md#single-use-tokens), in one table the registry and lib/runtime/single-use share.
export const SINGLE_USE_TTL_SECONDS = {
  /** A reset link is read from an inbox, maybe an hour later; not longer, as it stands in for the password. */
  'password-reset': 3_600,
  /** Handed from one app to another by a redirect: seconds are enough, a minute tolerates a slow browser. */
  'sso-handoff': 60,
  /** A person at the provider's sign-in page: ten minutes to type a password and approve. */
  'oidc-state': 600,
  /** The dev console link `npm start` prints (APP_ENV=dev only): as long as the 12-hour demo tokens printed beside it. */
  'console-dev-login': 43_200,
} as const;

export type SingleUseKind = keyof typeof SINGLE_USE_TTL_SECONDS;
