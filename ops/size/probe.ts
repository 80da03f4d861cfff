// What the startup measurements ask and with which configuration: a route that needs no store, so the figure is the
// app's load and first routing, not a network round trip.
/** Any path no route serves: the app loads its configuration, builds its router and answers 404. */
export const PROBE_PATH = '/size-probe';

/** A configuration that loads (APP_ENV=test allows loopback stores); nothing listens there and nothing is called. */
export const PROBE_BINDINGS: Record<string, string> = {
  APP_ENV: 'test',
  UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:9',
  UPSTASH_REDIS_REST_TOKEN: 'size-probe-token',
  DATABASE_URL: 'postgres://probe@127.0.0.1:9/probe',
  AUTH_JWT_SECRET: 'size-probe-hs256-secret-0123456789abcdef',
  INDEX_HASH_KEY: 'size-probe-index-hash-key-0123456789abcdef',
  SECRETS_KEYS: `probe:${btoa('size-probe-secret-box-key-32byte')}`,
  WEBHOOK_SECRET: `whsec_${btoa('size-probe-webhook-secret-24')}`,
  PASSKEY_RP_ID: 'runstate.test',
  PASSKEY_ORIGINS: 'https://runstate.test',
};
