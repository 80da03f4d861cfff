// Typed stand-in for SST v4's generated .sst/platform/config.d.ts: only the globals sst.config.ts uses, so `tsc` checks it offline.
// `sst install` cannot fetch its providers here; these shapes follow sst.dev/docs (config, Function, ApiGatewayV2, CronV2, Secret).

declare namespace $util {
  /** A value known only during deployment (Pulumi Output). */
  interface Output<T> {
    apply<U>(fn: (value: T) => U): Output<U>;
  }
  type Input<T> = T | Promise<T> | Output<T>;
}

interface SstAppInput {
  stage: string;
}

interface SstAppConfig {
  name: string;
  home: 'aws' | 'cloudflare' | 'local';
  removal?: 'remove' | 'retain' | 'retain-all';
  protect?: boolean;
  providers?: Record<string, string | Record<string, unknown>>;
}

interface SstConfig {
  app(input: SstAppInput): SstAppConfig;
  run(): Promise<Record<string, unknown> | void>;
}

declare function $config(config: SstConfig): SstConfig;

declare const $app: { readonly name: string; readonly stage: string };

declare namespace sst {
  class Secret {
    constructor(name: string, placeholder?: $util.Input<string>);
    readonly name: $util.Output<string>;
    readonly value: $util.Output<string>;
  }

  namespace aws {
    type Duration = `${number} ${'second' | 'seconds' | 'minute' | 'minutes'}`;

    interface FunctionArgs {
      /** `{path}/{file}.{export}`, e.g. functions/entries/lambda.handler */
      handler: $util.Input<string>;
      runtime?: $util.Input<'nodejs20.x' | 'nodejs22.x' | 'nodejs24.x'>;
      architecture?: $util.Input<'x86_64' | 'arm64'>;
      memory?: $util.Input<`${number} MB` | `${number} GB`>;
      timeout?: $util.Input<Duration>;
      environment?: $util.Input<Record<string, $util.Input<string>>>;
      link?: $util.Input<unknown[]>;
      url?: $util.Input<boolean | { authorization?: 'none' | 'iam' }>;
      /** How SST's esbuild bundles the handler. */
      nodejs?: $util.Input<{
        /** A file (relative to sst.config.ts) whose default export is an array of esbuild plugins; SST imports it with `node`. */
        plugins?: $util.Input<string>;
        /** esbuild build options merged into SST's. */
        esbuild?: $util.Input<Record<string, unknown>>;
        /** Packages left out of the bundle and installed into the function package instead. */
        install?: $util.Input<string[]>;
        format?: $util.Input<'esm' | 'cjs'>;
        minify?: $util.Input<boolean>;
        sourcemap?: $util.Input<boolean>;
        banner?: $util.Input<string>;
        /** Modules reached only through a dynamic `import()` go into files of their own (ESM only). Default false. */
        splitting?: $util.Input<boolean>;
      }>;
    }

    class Function {
      constructor(name: string, args: FunctionArgs);
      readonly url: $util.Output<string>;
      readonly name: $util.Output<string>;
    }

    interface CronV2Args {
      /** The handler path or the function's arguments (the older `job` is deprecated). */
      function?: $util.Input<string | FunctionArgs>;
      /** `rate(5 minutes)`, `cron(0 12 * * ? *)` (UTC unless `timezone`) or a one-time `at(…)`. */
      schedule: $util.Input<`rate(${string})` | `cron(${string})` | `at(${string})`>;
      timezone?: $util.Input<string>;
      /** Default true. */
      enabled?: $util.Input<boolean>;
      /** EventBridge Scheduler's retries of a failed invocation, 0–185; default 0. */
      retries?: $util.Input<number>;
      /** The ARN of an SQS queue for events whose retries ran out. */
      dlq?: $util.Input<string>;
      /** What the function is invoked with; `{}` when omitted. */
      event?: $util.Input<Record<string, unknown>>;
    }

    /** A cron job on Amazon EventBridge Scheduler that invokes a Lambda function. */
    class CronV2 {
      constructor(name: string, args: CronV2Args);
    }

    interface ApiGatewayV2Args {
      domain?: $util.Input<string | { name: $util.Input<string> }>;
      cors?: $util.Input<boolean | Record<string, unknown>>;
      accessLog?: $util.Input<{ retention?: $util.Input<string> }>;
      link?: $util.Input<unknown[]>;
    }

    class ApiGatewayV2 {
      constructor(name: string, args?: ApiGatewayV2Args);
      readonly url: $util.Output<string>;
      /** `rawRoute` is `METHOD /path` or `$default`; the handler is a path or the Function's arguments. */
      route(rawRoute: string, handler: $util.Input<string | FunctionArgs>, args?: Record<string, unknown>): unknown;
    }
  }
}
