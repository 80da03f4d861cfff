// `npm start`: brings up what is missing (Redis, PostgreSQL, proxies, a fake iiko server), migrates, seeds the demo, serves every function.
import type { Server } from 'node:http';
import { join } from 'node:path';
import { serveNode } from '../../functions/entries/node.ts';
import { canSignTokens } from '../../lib/auth/tokens/access-token.ts';
import { loadConfig } from '../../lib/config/index.ts';
import { fullEnvSchema } from '../../lib/config/schema.ts';
import { appSecrets, loadDevSecrets } from './dev-secrets.ts';
import { applyMigrationsFromDisk } from '../../ops/migrations-from-disk.ts';
import { DEMO, DEMO_TOKEN_TTL_SECONDS, demoInvitee, seedDemo, type DemoTokenOptions } from './seed.ts';
import { demoConnectionPort, seedDemoConnection } from './seed-syrve.ts';
import { seedDemoPassword } from './seed-password.ts';
import { startDemoUpstream } from './demo-upstream.ts';
import { describeDemoReset, resetDemoWalkthrough } from './reset-demo.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { readyBanner } from './banner.ts';
import { LAUNCHER_HELP, parseLauncherArgs } from './help.ts';
import { provideDevOperator } from './dev-operator.ts';
import { writePrivateFile } from './private-file.ts';
import { devConsoleLink } from './console-link.ts';
import { cronTimerSeconds, startCronTimer } from './cron.ts';
import { displayPath, ensureDataDir, resolveDataDir } from './data-dir.ts';
import { neonProxyFor, openDatabase } from './database.ts';
import { withPgClient } from './pg-session.ts';
import { isPortFree } from '../processes/port.ts';
import { provideRedis } from './redis.ts';
import { stackNamespace, writeStackFile } from './stack-file.ts';
import { createTeardown } from '../stack/teardown.ts';
import { createFolderMailbox } from '../mailbox/folder-mailbox.ts';
import { startDemoOidc } from '../oidc/demo.ts';
import { startDemoDomainResolver } from './domain-resolver.ts';
import { startDemoBreachCheck } from './breach-check.ts';
import { startWebhookReceiver, type ReceivedDelivery } from '../fakes/index.ts';

class Interrupted extends Error {}

/**
 * The printed demo tokens live 12 hours, so the walkthrough keeps working all day; the verifier refuses tokens longer
 * than ACCESS_TOKEN_MAX_LIFETIME_SECONDS, so npm start raises it to that unless told otherwise (sign-in still issues
 * 15-minute tokens). Deployments keep 900 s.
 */
function devAccessTokenMaxLifetime(env: Record<string, string | undefined>): string {
  return env.ACCESS_TOKEN_MAX_LIFETIME_SECONDS || String(DEMO_TOKEN_TTL_SECONDS);
}

const say = (line: string): void => console.log(line);
const stack = createTeardown();
let phase: 'starting' | 'ready' | 'stopping' = 'starting';
let interrupted = false;
let firstSignalAt = 0;

async function shutdown(code: number): Promise<never> {
  phase = 'stopping';
  const clean = await stack.run(say);
  process.exit(clean ? code : 1);
}

function onSignal(signal: NodeJS.Signals): void {
  // One Ctrl-C can arrive twice (from the terminal to the whole group, and relayed by npm/tsx): only a later one forces.
  if (firstSignalAt !== 0 && Date.now() - firstSignalAt < 1_000) return;
  firstSignalAt ||= Date.now();
  if (phase === 'stopping' || interrupted) {
    say(`${signal} again: exiting without waiting`);
    process.exit(1);
  }
  say(`${signal}: stopping`);
  if (phase === 'ready') void shutdown(0);
  // While starting, the current step finishes first, so nothing it starts is left behind.
  else interrupted = true;
}

/** Called after every step that may have started something. */
function checkpoint(): void {
  if (interrupted) throw new Interrupted();
}

async function start(env: Record<string, string | undefined>): Promise<void> {
  const port = fullEnvSchema().shape.PORT.safeParse(env.PORT === '' ? undefined : env.PORT);
  if (port.success && !(await isPortFree(port.data))) throw new Error(`port ${port.data} is in use; stop what holds it or set PORT`);

  const dataDir = ensureDataDir(resolveDataDir(env));
  const secrets = await loadDevSecrets(dataDir, env);
  const operator = provideDevOperator(dataDir, env);
  const redis = await provideRedis(env, dataDir, stack, say);
  checkpoint();
  const database = await openDatabase(env, dataDir, stack, say);
  checkpoint();
  const neonLocalProxyUrl = await neonProxyFor(env, database.url, stack);
  checkpoint();
  await writeStackFile(dataDir, { redis, databaseUrl: database.url, neonLocalProxyUrl, namespace: stackNamespace(env) }, stack);

  // OIDC sign-in through a local OpenID provider; its client secret goes into the app's config only (local/oidc/demo.ts).
  const oidc = await startDemoOidc(
    env,
    { appPort: port.success ? port.data : 8787, organizationId: DEMO.organizationId, adminEmail: DEMO.adminEmail },
    stack,
  );
  checkpoint();
  // Custom-domain verification asks a fake resolver on loopback, never real DNS (local/launcher/domain-resolver.ts).
  const dns = await startDemoDomainResolver(env, dataDir, database.url, stack);
  checkpoint();
  // Passwords being set are checked against a fake range API on loopback, never the real one (local/launcher/breach-check.ts).
  const breach = await startDemoBreachCheck(env, stack);
  checkpoint();

  // The two demo passwords are the launcher's, for the seed and the fake; the app never gets them.
  const config = loadConfig({
    ...env,
    ...appSecrets(secrets.values),
    UPSTASH_REDIS_REST_URL: redis.url,
    UPSTASH_REDIS_REST_TOKEN: redis.token,
    ...(redis.revocation === undefined
      ? {}
      : { REVOCATION_REDIS_REST_URL: redis.revocation.url, REVOCATION_REDIS_REST_TOKEN: redis.revocation.token }),
    DATABASE_URL: database.url,
    NEON_LOCAL_PROXY_URL: neonLocalProxyUrl,
    ACCESS_TOKEN_MAX_LIFETIME_SECONDS: devAccessTokenMaxLifetime(env),
    // The app says when a queued export starts from the schedule that runs it: here, the timer below.
    ...(cronTimerSeconds(env) > 0 ? { CRON_INTERVAL_SECONDS: String(cronTimerSeconds(env)) } : {}),
    // Reset links point at this server's own reset page, from configuration (never from a request's Host).
    PASSWORD_RESET_LINK_BASE: env.PASSWORD_RESET_LINK_BASE || `http://127.0.0.1:${port.success ? port.data : 8787}/auth/password-reset`,
    // Invite links likewise point at this server's own invite page.
    INVITE_LINK_BASE: env.INVITE_LINK_BASE || `http://127.0.0.1:${port.success ? port.data : 8787}/invites/accept`,
    // Passkeys' relying party: localhost, as a browser refuses an IP address for an RP ID (so open the console there).
    PASSKEY_RP_ID: env.PASSKEY_RP_ID || 'localhost',
    PASSKEY_ORIGINS: env.PASSKEY_ORIGINS || `http://localhost:${port.success ? port.data : 8787}`,
    ...oidc.env,
    ...dns.env,
    ...breach.env,
    ...operator.env,
  });
  const tokenOptions: DemoTokenOptions = {
    ...(env.AUTH_ISSUER ? { issuer: env.AUTH_ISSUER } : {}),
    ...(env.AUTH_AUDIENCE ? { audience: env.AUTH_AUDIENCE } : {}),
  };
  const jwtSecret = secrets.values.AUTH_JWT_SECRET;
  const { applied, seed, password, invitee, upstream, connection } = await withPgClient(database.url, async (client) => {
    const migrated = await applyMigrationsFromDisk(client);
    const tenant = await seedDemo(client, jwtSecret, tokenOptions);
    const adminPassword = await seedDemoPassword(client, {
      userId: tenant.admin.userId,
      password: secrets.values.DEMO_ADMIN_PASSWORD,
      appEnv: config.appEnv,
    });
    const newcomer = await demoInvitee(client, jwtSecret, tokenOptions);
    const fake = await startDemoUpstream(await demoConnectionPort(client), config.port, stack);
    const seeded = await seedDemoConnection(client, {
      baseUrl: fake.url,
      secretsKeys: config.secretsKeys,
      password: secrets.values.SYRVE_DEMO_PASSWORD,
      upstream: fake,
    });
    return { applied: migrated.applied, seed: tenant, password: adminPassword, invitee: newcomer, upstream: fake, connection: seeded };
  });
  checkpoint();
  if (applied.length > 0) say(`applied migrations: ${applied.join(', ')}`);
  if (password.seeded && password.changed) say("set the demo admin's sign-in password (DEMO_ADMIN_PASSWORD)");
  if (!password.seeded) {
    say(`APP_ENV=${password.appEnv}: no sign-in password seeded for the demo admin (the demo password is for APP_ENV=dev only)`);
  }
  if (connection.moved && !connection.created)
    say(`the demo Syrve connection now points at ${connection.baseUrl} (its previous port was taken)`);
  if (connection.resealed) {
    say(
      "the demo Syrve connection's stored password does not open with this SECRETS_KEYS (dev-secrets.json replaced, or a database " +
        `shared with another data folder): sealed SYRVE_DEMO_PASSWORD again as credential version ${connection.credentialVersion}`,
    );
  }

  // A restart keeps the database: what the last walkthrough changed in the demo tenant is undone, so it answers as printed again.
  const reset = describeDemoReset(
    await resetDemoWalkthrough(createDeps(config), { adminUserId: seed.admin.userId, inviteeUserId: invitee.userId }),
  );
  if (reset !== undefined) say(reset);
  checkpoint();

  // No email leaves this machine: the dev mailbox folder stands in for the email API.
  const mailboxDir = join(dataDir, 'mailbox');
  const server = (await serveNode(config, { notifier: createFolderMailbox(mailboxDir) })) as Server;
  stack.add('HTTP server', () => closeServer(server));
  checkpoint();
  // Deliveries go to this receiver on 127.0.0.1 in the walkthrough; it prints what it verified, never a secret.
  const receiver = await startWebhookReceiver();
  receiver.onDelivery = (delivery) => say(describeDelivery(delivery));
  stack.add('webhook receiver', () => receiver.close());
  const cron = startCronTimer(config, env);
  if (cron !== undefined) stack.add('scheduled function timer', cron.stop);

  const baseUrl = `http://127.0.0.1:${config.port}`;
  const consoleLink = await devConsoleLink(config, seed, baseUrl);
  const secretsFile = displayPath(secrets.file);
  const walkthroughFile = join(dataDir, 'walkthrough.txt');
  phase = 'ready';
  await sayKept(
    walkthroughFile,
    readyBanner({
      baseUrl,
      seed,
      invitee,
      consoleLink,
      signIn: password.seeded
        ? {
            password: secrets.values.DEMO_ADMIN_PASSWORD,
            secretsFile: secrets.fromEnv.includes('DEMO_ADMIN_PASSWORD') ? undefined : secretsFile,
            accessTokenTtlSeconds: config.signIn.accessTokenTtlSeconds,
          }
        : undefined,
      webhookReceiverUrl: receiver.url.replace(/\/hooks$/, ''),
      syrve: {
        connectionId: connection.connectionId,
        upstreamUrl: upstream.url,
        enabled: connection.enabled,
        // The webhook command finds the secret by the data folder; a folder chosen by RUNSTATE_DATA_DIR must be named to it.
        dataDir: dataDir === resolveDataDir({}) ? undefined : dataDir,
        secretFromEnv: secrets.fromEnv.includes('WEBHOOK_SECRET'),
      },
      organizationName: DEMO.organizationName,
      locationName: DEMO.locationName,
      secretsFile,
      dataDir: displayPath(dataDir),
      stagedDataDir: database.stagedDataDir,
      mailboxDir,
      breachedPassword: config.passwordBreach.mode === 'off' ? undefined : breach.breachedPassword,
      operatorTokenFile: operator.file,
      walkthroughFile: displayPath(walkthroughFile),
      services: [
        ['HTTP', `${baseUrl} (APP_ENV=${config.appEnv}; OpenAPI at ${baseUrl}/openapi.json, health at ${baseUrl}/healthz)`],
        ['Redis', redis.description],
        ['PostgreSQL', `${database.description}${neonLocalProxyUrl !== undefined ? `, through the Neon proxy ${neonLocalProxyUrl}` : ''}`],
        [
          'Secrets',
          `${secretsFile} (mode 0600)${secrets.fromEnv.length > 0 ? `; from the environment: ${secrets.fromEnv.join(', ')}` : ''}`,
        ],
        ['Syrve', `fake iiko RMS server on ${upstream.url}: accepts the demo connection's current login and password`],
        [
          'Console',
          config.console.enabled
            ? `${baseUrl}/console (the admin console; CONSOLE_ENABLED=false turns it off)`
            : 'off (CONSOLE_ENABLED=false)',
        ],
        ['Cron', cron?.description ?? 'off (RUNSTATE_CRON_INTERVAL_SECONDS=0)'],
        ['DNS', dns.description],
        ['Breaches', breach.description],
        ['Operators', operator.description],
        [
          'Mailbox',
          `${displayPath(mailboxDir)}: password-reset links and emailed invitations land here, one JSON file (0600) per message; nothing is sent`,
        ],
      ],
      stoppers: stack.names(),
      notes: [
        ...(config.auth.hs256 === undefined
          ? [
              'AUTH_JWKS_URL, AUTH_SIGNING_KEYS or ACCESS_TOKEN_SIGNING=ES256|EdDSA is set, so these HS256 tokens will be refused: sign in, or use your identity provider.',
            ]
          : []),
        ...(canSignTokens(config.auth)
          ? []
          : ['No key signs sign-in tokens here (AUTH_JWKS_URL without AUTH_SIGNING_KEYS): POST /auth/login answers 503 NOT_CONFIGURED.']),
        ...oidc.lines,
      ],
    }),
  );
}

/** Prints the walkthrough once, kept first where the scheduler's lines cannot scroll it away (0600: it holds the demo tokens and password). */
async function sayKept(file: string, text: string): Promise<void> {
  await writePrivateFile(file, `${text}\n`);
  say(text);
}

/** One delivery as the receiver saw it: whether the package verified it, its id, and the event (ids and safe details only). */
function describeDelivery(delivery: ReceivedDelivery): string {
  const verified =
    delivery.verifiedBy !== undefined ? 'verified with standardwebhooks' : 'NOT verified (no secret given, or a bad signature)';
  return `webhook received: ${delivery.webhookId}, ${verified}\n  ${delivery.body}`;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error !== undefined ? reject(error) : resolve()));
    // Idle keep-alive sockets (curl, browsers) would otherwise hold close() open.
    server.closeAllConnections();
  });
}

const args = parseLauncherArgs(process.argv.slice(2));
if (args.action === 'help') {
  console.log(LAUNCHER_HELP);
  process.exit(0);
}
if (args.action === 'refuse') {
  console.error(`npm start: ${args.problem}\n\n${LAUNCHER_HELP}`);
  process.exit(2);
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// A crash still stops redis-server and PostgreSQL, so no orphan keeps the data folder busy for the next start.
process.on('uncaughtException', (error) => {
  console.error(`npm start: unexpected error: ${error.message}`);
  if (phase === 'stopping') process.exit(1);
  void shutdown(1);
});
start(process.env).catch(async (error: unknown) => {
  if (!(error instanceof Interrupted)) console.error(`npm start: ${(error as Error).message}`);
  await shutdown(error instanceof Interrupted ? 0 : 1);
});
