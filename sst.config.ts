// AWS Lambda deployment of runstate through SST v4: the composed app behind one API Gateway HTTP API `$default` route,
// and the scheduled function on an EventBridge Scheduler cron.
// The generated .sst/platform/config.d.ts needs `sst install`, which cannot reach its providers here, so a typed stub
// keeps this file checked by `tsc`; SST itself ignores the reference.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./types/sst-platform.d.ts" />

// Every value the app needs in staging/prod, as `sst secret set <Secret> --stage <stage>` (it asks for the value); no defaults.
const SECRET_ENVIRONMENT = {
  UPSTASH_REDIS_REST_URL: 'UpstashRedisRestUrl',
  UPSTASH_REDIS_REST_TOKEN: 'UpstashRedisRestToken',
  REVOCATION_REDIS_REST_URL: 'RevocationRedisRestUrl',
  REVOCATION_REDIS_REST_TOKEN: 'RevocationRedisRestToken',
  DATABASE_URL: 'DatabaseUrl',
  AUTH_TOKEN_ISSUER: 'AuthTokenIssuer',
  SECRETS_KEYS: 'SecretsKeys',
  INDEX_HASH_KEY: 'IndexHashKey',
  WEBHOOK_SECRET: 'WebhookSecret',
  // Not secret, but per stage and required: the passkeys' relying party (docs/api.md#environment).
  PASSKEY_RP_ID: 'PasskeyRpId',
  PASSKEY_ORIGINS: 'PasskeyOrigins',
} as const;
/** Secrets a deployment may leave unset: the placeholder is what an unset one reads as (an empty list of providers). */
const OPTIONAL_SECRET_ENVIRONMENT = {
  OIDC_PROVIDERS: ['OidcProviders', '[]'],
  // Empty reads as unset: no operator access until an operator's digest is put in.
  OPERATOR_TOKEN_HASHES: ['OperatorTokenHashes', ''],
  // Not secret, but per stage like the rest: the browser origins that may call with credentials; empty, no CORS headers.
  CORS_ORIGINS: ['CorsOrigins', ''],
  // Configured signing keys instead of the stored ones (docs/design/signing-keys.md); empty: the stored keys sign.
  AUTH_SIGNING_KEYS: ['AuthSigningKeys', ''],
} as const;

export default $config({
  app(input) {
    return {
      name: 'runstate',
      home: 'aws',
      removal: input.stage === 'production' ? 'retain' : 'remove',
      protect: input.stage === 'production',
    };
  },
  async run() {
    // Deployed stages are never dev/test: staging and prod both refuse localhost stores, HS256 and missing keys.
    // APP_ENV is also the key's env segment, so stages sharing one Redis never see each other's keys.
    const environment: Record<string, $util.Input<string>> = {
      APP_ENV: $app.stage === 'production' ? 'prod' : 'staging',
      // The admin console (docs/console.md): off unless the deploying shell says CONSOLE_ENABLED=true.
      CONSOLE_ENABLED: process.env.CONSOLE_ENABLED === 'true' ? 'true' : 'false',
      // Custom-domain verification's DNS-over-HTTPS resolver (docs/deploy.md): from the deploying shell; unset, it answers 503.
      ...(process.env.DOMAIN_VERIFY_DOH_URL ? { DOMAIN_VERIFY_DOH_URL: process.env.DOMAIN_VERIFY_DOH_URL } : {}),
      // The breached-password check (docs/deploy.md): fail-open against the public range API unless the deploying shell says otherwise.
      ...(process.env.PASSWORD_BREACH_CHECK ? { PASSWORD_BREACH_CHECK: process.env.PASSWORD_BREACH_CHECK } : {}),
      ...(process.env.PASSWORD_BREACH_API_URL ? { PASSWORD_BREACH_API_URL: process.env.PASSWORD_BREACH_API_URL } : {}),
      ...(process.env.PASSWORD_BREACH_TIMEOUT_MS ? { PASSWORD_BREACH_TIMEOUT_MS: process.env.PASSWORD_BREACH_TIMEOUT_MS } : {}),
      // How access tokens are signed (docs/deploy.md#signing-keys): the stored ES256 keys unless the deploying shell says
      // EdDSA, or HS256 with ACCESS_TOKEN_ALLOW_HS256=true as well.
      ...(process.env.ACCESS_TOKEN_SIGNING ? { ACCESS_TOKEN_SIGNING: process.env.ACCESS_TOKEN_SIGNING } : {}),
      ...(process.env.ACCESS_TOKEN_ALLOW_HS256 ? { ACCESS_TOKEN_ALLOW_HS256: process.env.ACCESS_TOKEN_ALLOW_HS256 } : {}),
    };
    for (const [variable, secret] of Object.entries(SECRET_ENVIRONMENT)) environment[variable] = new sst.Secret(secret).value;
    for (const [variable, [secret, placeholder]] of Object.entries(OPTIONAL_SECRET_ENVIRONMENT)) {
      environment[variable] = new sst.Secret(secret, placeholder).value;
    }

    // Both functions: the same runtime, environment and bundle. The plugin file swaps zod's locale index for an empty
    // module, as wrangler.toml's [alias] does for the worker (esbuild's own `alias` option takes package names only).
    const shared = {
      runtime: 'nodejs22.x',
      architecture: 'arm64',
      memory: '512 MB',
      environment,
      // Split at dynamic imports: each function (functions/app.ts), the cron's tasks and the Neon driver in a file of
      // their own, read and compiled only when first needed, so a cold start compiles what its first request uses.
      nodejs: { plugins: 'functions/entries/lambda-esbuild-plugins.mjs', splitting: true },
    } satisfies Omit<sst.aws.FunctionArgs, 'handler'>;

    const api = new sst.aws.ApiGatewayV2('Api');
    api.route('$default', {
      ...shared,
      handler: 'functions/entries/lambda.handler',
      // Most requests are a few HTTP round trips; a Syrve call may wait for another instance's upstream login and
      // retry, inside its 20 s budget (docs/design/postgres.md#postgresql-deadlines). API Gateway cuts off at 30 s.
      timeout: '29 seconds',
    });

    // The scheduled function every 5 minutes, as wrangler.toml's [triggers] (the period is justified there), on the same
    // whole minutes (UTC), which is what CRON_INTERVAL_SECONDS (300 by default) tells the app: a rate() would start
    // wherever the deploy happened, and a queued export's expected start (docs/design/jobs.md) would be off by up to 5 min.
    new sst.aws.CronV2('Cleanup', {
      schedule: 'cron(0/5 * * * ? *)',
      // A failed run is not retried: the next one, 5 minutes later, resumes every task from its cursor.
      retries: 0,
      function: {
        ...shared,
        handler: 'functions/entries/lambda.scheduled',
        // Tasks run one after another, each within CRON_TASK_TIME_BUDGET_MS (5 s): a run of today's tasks takes well
        // under 30 s. No API Gateway in front, so no 30 s cut-off; a minute leaves room and still ends before the next run.
        timeout: '60 seconds',
      },
    });

    return { url: api.url };
  },
});
