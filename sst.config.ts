// AWS Lambda deployment of runstate through SST v4: the composed app behind one API Gateway HTTP API `$default` route.
// The generated .sst/platform/config.d.ts needs `sst install`, which cannot reach its providers here, so a typed stub
// keeps this file checked by `tsc`; SST itself ignores the reference.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference
/// <reference path="./types/sst-platform.d.ts" />

// Every value the app needs in staging/prod, as `sst secret set <Secret> <value> --stage <stage>`; none has a default.
const SECRET_ENVIRONMENT = {
  UPSTASH_REDIS_REST_URL: 'UpstashRedisRestUrl',
  UPSTASH_REDIS_REST_TOKEN: 'UpstashRedisRestToken',
  REVOCATION_REDIS_REST_URL: 'RevocationRedisRestUrl',
  REVOCATION_REDIS_REST_TOKEN: 'RevocationRedisRestToken',
  DATABASE_URL: 'DatabaseUrl',
  AUTH_JWKS_URL: 'AuthJwksUrl',
  AUTH_ISSUER: 'AuthIssuer',
  AUTH_AUDIENCE: 'AuthAudience',
  SECRETS_KEYS: 'SecretsKeys',
  INDEX_HASH_KEY: 'IndexHashKey',
  WEBHOOK_SECRET: 'WebhookSecret',
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
    const environment: Record<string, $util.Input<string>> = { APP_ENV: $app.stage === 'production' ? 'prod' : 'staging' };
    for (const [variable, secret] of Object.entries(SECRET_ENVIRONMENT)) environment[variable] = new sst.Secret(secret).value;

    const api = new sst.aws.ApiGatewayV2('Api');
    api.route('$default', {
      handler: 'functions/entries/lambda.handler',
      runtime: 'nodejs22.x',
      architecture: 'arm64',
      memory: '512 MB',
      // Most requests are a few HTTP round trips; a Syrve call may wait for another instance's upstream login and
      // retry, inside its 20 s budget (docs/design.md#postgresql-deadlines). API Gateway cuts off at 30 s.
      timeout: '29 seconds',
      environment,
    });
    // The cleanup cron (sst.aws.CronV2 with `function`) arrives with its own issue.

    return { url: api.url };
  },
});
