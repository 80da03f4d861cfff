// `npm start -- --help`: what the launcher takes (one option) and the environment it reads, before anything starts.
import { parseArgs } from 'node:util';

export type LauncherArgs = { action: 'start' } | { action: 'help' } | { action: 'refuse'; problem: string };

/** `--help`/`-h` asks for the help; anything else on the command line is refused (the launcher is configured by environment). */
export function parseLauncherArgs(argv: string[]): LauncherArgs {
  try {
    const { values } = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, strict: true });
    return values.help === true ? { action: 'help' } : { action: 'start' };
  } catch (error) {
    return { action: 'refuse', problem: (error as Error).message };
  }
}

export const LAUNCHER_HELP = `Usage: npm start [-- --help]

Brings up what is missing (Redis, PostgreSQL, the Upstash and Neon proxies, local fakes), migrates, seeds the demo
tenant and serves every function on http://127.0.0.1:$PORT; then prints a walkthrough of numbered curl steps, kept in
<data folder>/walkthrough.txt (0600) until the next start. Step by step: local/README.md.

Options:
  -h, --help    print this help and exit 0; nothing is started

Environment (all optional; set, each replaces what npm start would bring or choose):
  PORT                               HTTP port (8787)
  RUNSTATE_DATA_DIR                  the data folder (.data/ at the repository root)
  REDIS_URL                          a Redis to put behind the REST proxy (redis-server from PATH, else an embedded engine)
  UPSTASH_REDIS_REST_URL, _TOKEN     a REST endpoint used as it is, no proxy
  RUNSTATE_REPLICA_LAG_MS            reads from a replica this many ms behind (0: none)
  DATABASE_URL                       PostgreSQL (an embedded PostgreSQL in the data folder)
  NEON_LOCAL_PROXY_URL               the Neon proxy in front of a local PostgreSQL (one started by npm start)
  RUNSTATE_CRON_INTERVAL_SECONDS     seconds between scheduled runs (60; 0: off)
  APP_ENV                            dev (the default) seeds the demo password, makes a dev operator secret and puts
                                     back what the last walkthrough changed in the demo tenant
  KEY_PREFIX                         the namespace of every Redis key (mhpay; recorded for cron and keys:audit)
  AUTH_JWT_SECRET, INDEX_HASH_KEY, SECRETS_KEYS, WEBHOOK_SECRET, SYRVE_DEMO_PASSWORD, DEMO_ADMIN_PASSWORD
                                     dev secrets (generated once into <data folder>/dev-secrets.json, 0600)
  OPERATOR_TOKEN_HASHES              operators (in dev: one secret made once into <data folder>/operator-token, 0600)
  ACCESS_TOKEN_MAX_LIFETIME_SECONDS  the longest token the verifier takes (43200, so the demo tokens last 12 hours)
  AUTH_ISSUER, AUTH_AUDIENCE         the demo tokens' iss and aud
  PASSWORD_RESET_LINK_BASE, INVITE_LINK_BASE
                                     where emailed links point (this server's own pages)
  PASSKEY_RP_ID, PASSKEY_ORIGINS     passkeys' relying party (localhost, http://localhost:$PORT)
  OIDC_PROVIDERS                     OpenID providers (a local provider for the demo organisation)
  DOMAIN_VERIFY_DOH_URL              custom-domain DNS checks (a fake resolver; DOH_FAKE_AUTO_VERIFY=true verifies every claim)
  PASSWORD_BREACH_API_URL            the breached-password range API (a fake; PASSWORD_BREACH_CHECK=off: no check)
  Any other variable of the app's configuration (README.md's table) is passed to the app as it is.

Stopping: Ctrl-C (or SIGTERM) stops everything npm start started, newest first, and exits 0 (1 if a part could not
be stopped). A second Ctrl-C while it stops (more than a second after the first) exits 1 at once, without waiting
for the rest.`;
