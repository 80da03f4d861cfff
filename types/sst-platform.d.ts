// Typed stand-in for SST v4's generated .sst/platform/config.d.ts: only the globals sst.config.ts uses, so `tsc` checks it offline.
// `sst install` cannot fetch its providers here; these shapes follow sst.dev/docs (config, Function, ApiGatewayV2, Secret).

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
    }

    class Function {
      constructor(name: string, args: FunctionArgs);
      readonly url: $util.Output<string>;
      readonly name: $util.Output<string>;
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
