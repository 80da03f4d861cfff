// Who may import whom (`npm run lint`); docs/design/layers.md#layers explains the layers these rules keep true.
const BASE = '^lib/(config|crypto|log|pg|redis|notify|upstream|webhooks)/';
// The one error type: any layer may throw it, and it imports nothing but the catalog of codes it is built from.
const APP_ERROR = '^lib/http/app-error\\.ts$';
/** What `npm run cron` uses of the dev stack: the local Neon proxy in front of a loopback PostgreSQL (dev/test only). */
const DEV_NEON_PROXY = '^local/(launcher/database|stack/teardown)\\.ts$';
/** What `npm run cron` and `npm run keys:audit` read to find a running `npm start` when given no store: its stack file. */
const LOCAL_STACK_FILE = '^local/launcher/(stack-file|stack-env|data-dir)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'lib-deploys-alone',
      comment: 'lib/ is what every runtime deploys; the dev stack, the tools and the tests must not ride along.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(functions|local|ops|test|bench|compat)/' },
    },
    {
      name: 'functions-on-lib',
      comment: 'functions/ are deployed too: they build on lib/ and on each other, never on the dev stack or the tools.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(local|ops|test|bench|compat)/' },
    },
    {
      name: 'local-stays-in-dev',
      comment: 'local/ is never deployed; only the tests, the benchmarks and the compat suite build on it.',
      severity: 'error',
      from: { pathNot: '^(local|test|bench|compat|ops)/' },
      to: { path: '^local/' },
    },
    {
      name: 'ops-reach-only-the-dev-neon-proxy',
      comment:
        'The one piece of the dev stack an ops tool may use: npm run cron puts the local Neon proxy in front of a loopback PostgreSQL in dev/test.',
      severity: 'error',
      from: { path: '^ops/', pathNot: '^ops/cron\\.ts$' },
      to: { path: DEV_NEON_PROXY },
    },
    {
      name: 'local-serves-the-app',
      comment: 'local/ serves the app (functions/app.ts, the Node entry) and migrates through ops/; it knows no test or tool.',
      severity: 'error',
      from: { path: '^local/' },
      to: { path: '^(functions|test|bench|compat)/', pathNot: '^functions/(app|entries/node)\\.ts$' },
    },
    {
      name: 'helpers-know-no-launcher',
      comment: 'The emulators and process helpers are reused alone (tests, bench, compat), so they know nothing of what wires them.',
      severity: 'error',
      from: { path: '^local/(processes|emulators)/' },
      to: { path: '^local/(launcher|stack)/' },
    },
    {
      name: 'ops-from-a-checkout',
      comment:
        "ops/ tools run lib/ code against real stores; they need neither the functions nor the dev stack, but to find a running npm start when given no store. The exceptions: ops/build-lambda.ts builds with the esbuild plugins sst.config.ts names, and ops/docs/ (npm run docs:generate) reads the served OpenAPI document and the benches' declared round trips the docs quote.",
      severity: 'error',
      from: { path: '^ops/', pathNot: '^ops/docs/' },
      to: {
        path: '^(functions|local|test|bench|compat)/',
        pathNot: `${DEV_NEON_PROXY}|${LOCAL_STACK_FILE}|^functions/entries/lambda-esbuild-plugins\\.mjs$`,
      },
    },
    {
      name: 'bench-not-on-tests',
      comment: 'bench/ builds on local/stack, the one place that wires the stack, not on the tests.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/' },
    },
    {
      name: 'compat-needs-the-emulator-only',
      comment: 'compat/ compares the Upstash emulator with the real service; it needs the emulator and redis-server only.',
      severity: 'error',
      from: { path: '^compat/' },
      to: { path: '^(lib|functions|ops|test|bench)/|^local/(?!emulators/|processes/)' },
    },
    {
      name: 'keys-is-the-bottom',
      comment:
        'Every Redis key is declared in lib/keys; it imports nothing of lib but the pure WebCrypto digests of lib/crypto (hashSegment), so every layer can build on it.',
      severity: 'error',
      from: { path: '^lib/keys/' },
      to: { path: '^lib/', pathNot: '^lib/(keys|crypto)/' },
    },
    {
      name: 'base-knows-no-use-case',
      comment: 'The stores, clients and pure helpers know no Deps, no use case and no HTTP, so each can be tested alone.',
      severity: 'error',
      from: { path: BASE },
      to: { path: '^lib/(runtime|events|auth|cron|console|http)/|^lib/[^/]+\\.ts$' },
    },
    {
      name: 'deps-below-capabilities',
      comment: 'Deps (lib/deps.ts, lib/create-deps.ts) is built from the base clients; every capability takes it.',
      severity: 'error',
      from: { path: '^lib/[^/]+\\.ts$' },
      to: { path: '^lib/(runtime|events|auth|cron|console|http)/' },
    },
    {
      name: 'http-is-a-toolkit',
      comment:
        'lib/http is the HTTP toolkit (error type, typed context, middleware) under auth and the console. ' +
        'hono-env.ts names the types of the variables requireAuth and requireOperator set, and nothing more of lib/auth.',
      severity: 'error',
      from: { path: '^lib/http/' },
      to: { path: '^lib/(runtime|events|auth|cron|console)/', pathNot: '^lib/auth/(authentication|operator)\\.ts$' },
    },
    {
      name: 'runtime-is-the-semantics',
      comment:
        'lib/runtime holds the operations on runtime state, and lib/events the organisation events beside it; auth, cron ' +
        'and the console build on them, so they import none of those and no HTTP beyond the one error type.',
      severity: 'error',
      from: { path: '^lib/(runtime|events)/' },
      to: { path: '^lib/(auth|cron|console)/|^lib/http/|^node_modules/hono/', pathNot: APP_ERROR },
    },
    {
      name: 'capabilities-apart',
      comment:
        'auth (sign-in, tokens, sessions, MFA) and cron (the scheduled run) each build on lib/runtime, not on each other; the console is the top.',
      severity: 'error',
      from: { path: '^lib/(auth|cron)/' },
      to: { path: '^lib/(auth|cron|console)/', pathNot: '^lib/$1/' },
    },
    {
      name: 'no-circular',
      comment:
        'A cycle at run time makes two modules one, and whichever loads first sees the other half-built. ' +
        'Type-only cycles (a context type naming the middleware that fills it) vanish at compile time.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-dev-dependency-deployed',
      comment: 'A devDependency is not installed where lib/ and functions/ deploy; a type-only import of one is compiled away.',
      severity: 'error',
      from: { path: '^(lib|functions)/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import the tool cannot resolve is one no rule above checks.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Unused files are knip's (knip.jsonc), so no orphan rule here.
    doNotFollow: { path: '^node_modules/' },
    exclude: { path: '^(dist|\\.data|\\.wrangler|coverage)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    // A type-only import is still one layer knowing another.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
