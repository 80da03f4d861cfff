// The text `npm start` prints when ready: where things are, the demo tenant and connection, tokens, and curl lines to paste.
import { displayPath } from './data-dir.ts';
import type { SeedResult } from './seed.ts';

export const READY_PREFIX = 'runstate is ready on ';
export const STOP_PREFIX = 'Ctrl-C';

export interface BannerFacts {
  baseUrl: string;
  seed: SeedResult;
  invitee: { userId: string; email: string; token: string };
  /** The admin console's dev link (local/launcher/console-link.ts): signs the demo admin in once; dev with the console on only. */
  consoleLink?: string | undefined;
  /** The demo admin's sign-in, with APP_ENV=dev only; without it the walkthrough starts at the invites. */
  signIn?: SignInFacts | undefined;
  /** The webhook receiver on 127.0.0.1 (local/fakes/webhook-receiver.ts) that prints each delivery it verified. */
  webhookReceiverUrl: string;
  syrve: {
    connectionId: string;
    /** The fake iiko RMS server the demo connection points at. */
    upstreamUrl: string;
    enabled: boolean;
    /** The data folder, when not the default one the webhook command would find by itself. */
    dataDir?: string | undefined;
    /** WEBHOOK_SECRET came from the environment, so the webhook command must run where it is set. */
    secretFromEnv: boolean;
  };
  organizationName: string;
  locationName: string;
  secretsFile: string;
  dataDir: string;
  /** The embedded PostgreSQL's data when it is staged outside `dataDir` (as root, in a folder closed to `postgres`). */
  stagedDataDir?: string | undefined;
  /** The dev mailbox folder (local/mailbox): password-reset links land there. */
  mailboxDir: string;
  /** A password the breached-password check refuses (npm start's fake lists it); undefined when the check is off or not the fake. */
  breachedPassword?: string | undefined;
  /** The dev operator secret's file (local/launcher/dev-operator.ts), absolute, so the step works from any folder; undefined when npm start made none. */
  operatorTokenFile?: string | undefined;
  /** Where this text is kept (written before it is printed), as the user would type it. */
  walkthroughFile: string;
  services: Array<[label: string, description: string]>;
  stoppers: string[];
  notes: string[];
}

export interface SignInFacts {
  /** The dev demo password (DEMO_ADMIN_PASSWORD). */
  password: string;
  /** Where it is kept: the data folder's dev-secrets.json as the user would type it, or undefined when from the environment. */
  secretsFile: string | undefined;
  /** What sign-in gives an access token (ACCESS_TOKEN_TTL_SECONDS). */
  accessTokenTtlSeconds: number;
}

const STEP = /^# \d+\./;
const INVITE_STEP = 'The admin invites';
const ACCEPT_STEP = 'The newcomer accepts';
const CONTINUATION = /^# {4}(?=\S)/;

export function readyBanner(f: BannerFacts): string {
  const curl = `curl -s -w '\\nHTTP %{http_code}\\n'`;
  const json = `-H 'content-type: application/json'`;
  const asAdmin = `-H "authorization: Bearer $ADMIN_TOKEN"`;
  const asNewcomer = `-H "authorization: Bearer $NEWCOMER_TOKEN"`;
  const accept = `${curl} -X POST "$BASE/invites/accept" ${asNewcomer} ${json} -d "{\\"token\\":\\"$INVITE_TOKEN\\"}"`;
  const width = Math.max(...f.services.map(([label]) => label.length));
  const signInTtl = lifetime(f.signIn?.accessTokenTtlSeconds ?? 900);
  const walkthrough = [
    ...tenantLines(f, curl),
    ...(f.signIn !== undefined ? signInLines(f, f.signIn, curl, json) : []),
    `# 1. ${INVITE_STEP} ${f.invitee.email} as Accountant of the outlet: 201, and the invite token, shown this once.`,
    `CREATED=$(${curl} -X POST "$BASE/orgs/$ORG/invites" ${asAdmin} ${json} \\`,
    `  -d "{\\"email\\":\\"${f.invitee.email}\\",\\"roleCode\\":\\"Accountant\\",\\"locationId\\":\\"$LOCATION\\"}"); echo "$CREATED"`,
    `INVITE_TOKEN=$(echo "$CREATED" | sed -n 's/.*"token":"\\([^"]*\\)".*/\\1/p'); echo "INVITE_TOKEN=$INVITE_TOKEN"`,
    `INVITE_ID=$(echo "$CREATED" | sed -n 's/.*"inviteId":"\\([^"]*\\)".*/\\1/p')`,
    '# 2. The admin lists the active invites: 200.',
    `${curl} "$BASE/orgs/$ORG/invites" ${asAdmin}`,
    `# 3. ${ACCEPT_STEP} with the invite token: 200, and the role is granted in PostgreSQL.`,
    accept,
    '# 4. The same accept again, as a client would retry after a lost reply: the same 200, and nothing is granted twice.',
    accept,
    '# 5. The admin tries to cancel the accepted invite: 404 NOT_FOUND (an invite ends exactly once).',
    `${curl} -X DELETE "$BASE/orgs/$ORG/invites/$INVITE_ID" ${asAdmin}`,
    ...webhookLines(curl, asAdmin, json),
    ...syrveLines(f, curl, asAdmin),
    ...resetLines(f, curl, json),
    ...(f.operatorTokenFile !== undefined ? operatorLines(f.operatorTokenFile, curl) : []),
  ];
  const steps = numbered(walkthrough);
  return [
    `${READY_PREFIX}${f.baseUrl}`,
    '',
    'Demo tenant (seeded; re-running keeps the same ids):',
    `  organisation  ${f.seed.organizationId}  ${f.organizationName}`,
    `  location      ${f.seed.locationId}  ${f.locationName}`,
    `  admin         ${f.seed.admin.email}  (OrganizationAdmin of the organisation)`,
    ...(f.signIn !== undefined
      ? [
          `  password      ${f.signIn.password}  (the dev demo password: DEMO_ADMIN_PASSWORD, ${
            f.signIn.secretsFile !== undefined ? `kept in ${f.signIn.secretsFile}` : 'from the environment'
          })`,
        ]
      : []),
    `  invitee       ${f.invitee.email}  (invited in step ${stepOf(steps, INVITE_STEP)}, a member from step ${stepOf(steps, ACCEPT_STEP)} on)`,
    '',
    ...(f.consoleLink !== undefined
      ? [
          'Admin console: this link signs the demo admin in (once, within 12 hours; after that sign in with the password):',
          `  ${f.consoleLink}`,
          '',
        ]
      : []),
    `ADMIN_TOKEN and NEWCOMER_TOKEN below are HS256, signed with the dev secret AUTH_JWT_SECRET in ${f.secretsFile}; they expire in 12 hours`,
    `(npm start lets tokens live that long). Sign-in issues ${signInTtl} access tokens, and a refresh token for the next pair.`,
    ...f.notes,
    '',
    'Try it: paste these lines into bash or zsh.',
    '',
    `BASE=${f.baseUrl}`,
    `ORG=${f.seed.organizationId}`,
    `LOCATION=${f.seed.locationId}`,
    `ADMIN_TOKEN=${f.seed.admin.token}`,
    `NEWCOMER_TOKEN=${f.invitee.token}`,
    `NEWCOMER_ID=${f.invitee.userId}`,
    `RECEIVER=${f.webhookReceiverUrl}`,
    ...(f.signIn !== undefined ? [`ADMIN_PASSWORD=${shellWord(f.signIn.password)}`] : []),
    ...steps,
    '',
    'Services:',
    ...f.services.map(([label, description]) => `  ${label.padEnd(width)}  ${description}`),
    '',
    `Data lives in ${f.dataDir}${f.stagedDataDir !== undefined ? `, PostgreSQL's in ${f.stagedDataDir}` : ''} ` +
      `(set RUNSTATE_DATA_DIR to put it elsewhere; delete ${f.stagedDataDir !== undefined ? 'both' : 'it'} to start afresh).`,
    `This text is kept in ${f.walkthroughFile} (0600: it holds the demo tokens${f.signIn !== undefined ? ' and password' : ''}) until the next start.`,
    `${STOP_PREFIX} (or SIGTERM) stops everything this launcher started, then exits 0: ${f.stoppers.join(', ')}. A second Ctrl-C while it stops exits 1 at once.`,
  ].join('\n');
}

/**
 * Sign-in, refresh, and the signed-in token at work. The password and the refresh token reach curl through printf, a
 * builtin of bash and zsh, so neither is ever in a process's argv (the password is printed above anyway, in dev only).
 */
function signInLines(f: BannerFacts, signIn: SignInFacts, curl: string, json: string): string[] {
  const token = (variable: string, from: string, field: string): string =>
    `${variable}=$(echo "$${from}" | sed -n 's/.*"${field}":"\\([^"]*\\)".*/\\1/p')`;
  return [
    `# 1. The admin signs in with email and password: 200, a ${lifetime(signIn.accessTokenTtlSeconds)} access token and a refresh token, shown this once.`,
    `SIGNED_IN=$(printf '{"organizationId":"%s","email":"%s","password":"%s"}' "$ORG" '${f.seed.admin.email}' "$ADMIN_PASSWORD" \\`,
    `  | ${curl} -X POST "$BASE/auth/login" ${json} --data-binary @-); echo "$SIGNED_IN"`,
    token('ACCESS_TOKEN', 'SIGNED_IN', 'accessToken'),
    token('REFRESH_TOKEN', 'SIGNED_IN', 'refreshToken'),
    '# 2. The signed-in token works like any other bearer token: the admin lists the active invites with it: 200.',
    `${curl} "$BASE/orgs/$ORG/invites" -H "authorization: Bearer $ACCESS_TOKEN"`,
    '# 3. The refresh token buys the next pair: 200. Each works once; a spent one presented again ends the whole session.',
    `REFRESHED=$(printf '{"refreshToken":"%s"}' "$REFRESH_TOKEN" | ${curl} -X POST "$BASE/auth/refresh" ${json} --data-binary @-); echo "$REFRESHED"`,
    token('ACCESS_TOKEN', 'REFRESHED', 'accessToken'),
    token('REFRESH_TOKEN', 'REFRESHED', 'refreshToken'),
  ];
}

/** Before anyone signs in, the sign-in page finds its tenant: by slug, and by the custom domain it is served on. */
function tenantLines(f: BannerFacts, curl: string): string[] {
  const { slug, domain } = f.seed.tenant;
  return [
    `# 1. The sign-in page resolves its tenant before anyone signs in (no token; 60 a minute per address): 200, the public branding.`,
    `${curl} "$BASE/public/tenants/resolve?slug=${slug}"`,
    ...(domain === undefined ? [] : [`${curl} "$BASE/public/tenants/resolve?domain=${domain}"`]),
  ];
}

/**
 * Numbers the walkthrough's steps in order (each part writes its own from `# 1.`), so a part can be left out or added;
 * a step's continuation line (`#    …`) stays aligned under its text.
 */
function numbered(lines: string[]): string[] {
  let step = 0;
  return lines.map((line) => {
    if (STEP.test(line)) return line.replace(STEP, `# ${(step += 1)}.`);
    return CONTINUATION.test(line) ? line.replace(CONTINUATION, `#${' '.repeat(String(step).length + 3)}`) : line;
  });
}

/** The number the walkthrough gives the step whose text starts with `text`. */
function stepOf(steps: string[], text: string): number {
  const step = steps.find((line) => STEP.test(line) && line.includes(`. ${text}`));
  return Number(/^# (\d+)\./.exec(step ?? '')?.[1]);
}

/** "15-minute", or "90-second" for a lifetime that is no whole number of minutes. */
function lifetime(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60}-minute` : `${seconds}-second`;
}

/**
 * Signed webhooks: an endpoint pointed at the receiver, and a role change whose delivery the receiver prints, verified.
 * The endpoint's secret, shown once in the create answer, goes to the receiver through a pipe, never through argv.
 */
function webhookLines(curl: string, asAdmin: string, json: string): string[] {
  return [
    '# 1. Webhooks: the admin points an endpoint at the receiver on this machine, for role changes: 201 and its whsec_ secret,',
    '#    shown this once; the pipe hands it to the receiver (never argv), which verifies each delivery with the standardwebhooks package.',
    `HOOK=$(curl -s -X POST "$BASE/orgs/$ORG/webhook-endpoints" ${asAdmin} ${json} \\`,
    `  -d "{\\"url\\":\\"$RECEIVER/hooks\\",\\"events\\":[\\"member.role_changed\\"]}")`,
    `echo "$HOOK" | sed -n 's/.*"secret":"\\(whsec_[^"]*\\)".*/\\1/p' | ${curl} -X PUT --data-binary @- "$RECEIVER/_receiver/secret"`,
    '# 2. The admin makes the newcomer a Viewer at the outlet: 200; right after the answer npm start prints the delivery, verified.',
    `${curl} -X PATCH "$BASE/orgs/$ORG/members/$NEWCOMER_ID" ${asAdmin} ${json} -d "{\\"roleCode\\":\\"Viewer\\",\\"locationId\\":\\"$LOCATION\\"}"`,
  ];
}

/** The Syrve/iiko part of the walkthrough: test, stores, and a rotation done as an operator would (password first, then the webhook). */
function syrveLines(f: BannerFacts, curl: string, asAdmin: string): string[] {
  const route = (suffix: string): string => `"$BASE/orgs/$ORG/syrve/connections/$CONNECTION/${suffix}"`;
  const webhookEnv = f.syrve.dataDir !== undefined ? `RUNSTATE_DATA_DIR=${shellQuote(f.syrve.dataDir)} ` : '';
  const secretFrom = f.syrve.secretFromEnv
    ? 'WEBHOOK_SECRET from the environment: run it where that is set'
    : `its secret stays in ${f.secretsFile}`;
  return [
    '# Syrve/iiko: the demo connection logs in to a fake iiko RMS server on this machine (login demo; the password is sealed in PostgreSQL).',
    `CONNECTION=${f.syrve.connectionId}`,
    `SYRVE_FAKE=${f.syrve.upstreamUrl}`,
    ...(f.syrve.enabled
      ? []
      : ['# The demo connection was disabled; this enables it again: 204.', `${curl} -X POST ${route('enable')} ${asAdmin}`]),
    '# 6. The admin tests the connection: 200, "test":"ok" (the first call logs in upstream; every later caller shares that session).',
    `${curl} -X POST ${route('test')} ${asAdmin}`,
    '# 7. The stores on the RMS server, through the same runtime session: 200, "session":"cached".',
    `${curl} ${route('stores')} ${asAdmin}`,
    "# 8. Rotate the password: set a new one on the RMS server (the fake's loopback-only account route: 204), then send the signed",
    `#    rotation webhook (${secretFrom}): 200, the connection re-tested with the new password ("test":"ok").`,
    "NEW_PW=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')",
    `printf %s "$NEW_PW" | ${curl} -X PUT --data-binary @- "$SYRVE_FAKE/_fake/accounts/demo"`,
    `printf %s "$NEW_PW" | ${webhookEnv}npm run -s webhook -- rotate --url "$BASE" --org "$ORG" --connection "$CONNECTION" --login demo --password-stdin`,
  ];
}

/** As is when it is one shell word already, else quoted. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : shellQuote(text);
}

/**
 * A reset link asked for and read from the dev mailbox, and a breached password refused with it (which spends nothing).
 * Not confirmed here: a confirm sets a new password and signs out every session of the admin (local/README.md shows it).
 */
function resetLines(f: BannerFacts, curl: string, json: string): string[] {
  const mailbox = shellQuote(f.mailboxDir);
  return [
    `# 1. Forgot the password? Ask for a reset link: 202, the same answer for any email; the link lands in the mailbox folder.`,
    `${curl} -X POST "$BASE/auth/password-reset" ${json} -d "{\\"organizationId\\":\\"$ORG\\",\\"email\\":\\"${f.seed.admin.email}\\"}"`,
    `sleep 1; RESET_TOKEN=$(sed -n 's/.*#token=\\(rsp_[A-Za-z0-9_-]*\\).*/\\1/p' "$(ls -1 ${mailbox}/*.json | tail -n 1)"); echo "RESET_TOKEN=$RESET_TOKEN"`,
    ...(f.breachedPassword !== undefined
      ? [
          `# 2. A password from a breach list (${f.breachedPassword}, listed by the fake range API) is refused: 400 PASSWORD_BREACHED;`,
          '#    only the first 5 hex characters of its SHA-1 left the server, and the link is not spent.',
          `printf '{"token":"%s","newPassword":"%s"}' "$RESET_TOKEN" ${shellWord(f.breachedPassword)} \\`,
          `  | ${curl} -X POST "$BASE/auth/password-reset/confirm" ${json} --data-binary @-`,
        ]
      : []),
  ];
}

/**
 * An operator route with the dev operator secret: the secret goes from its file to curl through printf (a builtin) and a
 * pipe, so it is in no process's argv and never printed.
 */
function operatorLines(tokenFile: string, curl: string): string[] {
  return [
    `# 1. Operators act on every tenant with a secret of their own, not a JWT; npm start made one in ${displayPath(tokenFile)} (0600) and`,
    "#    configured only its SHA-256 (OPERATOR_TOKEN_HASHES). The operator reads the demo organisation's rate-limit blocks: 200.",
    `printf 'authorization: Bearer %s\\n' "$(cat ${shellQuote(tokenFile)})" | ${curl} -H @- "$BASE/ops/tenants/$ORG/rate-limit"`,
  ];
}

/** One shell word, whatever the path holds. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
