// The text `npm start` prints when ready: where things are, the demo tenant, tokens, and curl lines to paste.
import type { SeedResult } from './seed.ts';

export const READY_PREFIX = 'runstate is ready on ';
export const STOP_PREFIX = 'Ctrl-C';

export interface BannerFacts {
  baseUrl: string;
  seed: SeedResult;
  invitee: { userId: string; email: string; token: string };
  organizationName: string;
  locationName: string;
  secretsFile: string;
  dataDir: string;
  /** The embedded PostgreSQL's data when it is staged outside `dataDir` (as root, in a folder closed to `postgres`). */
  stagedDataDir?: string | undefined;
  services: Array<[label: string, description: string]>;
  stoppers: string[];
  notes: string[];
}

export function readyBanner(f: BannerFacts): string {
  const curl = `curl -s -w '\\nHTTP %{http_code}\\n'`;
  const json = `-H 'content-type: application/json'`;
  const asAdmin = `-H "authorization: Bearer $ADMIN_TOKEN"`;
  const asNewcomer = `-H "authorization: Bearer $NEWCOMER_TOKEN"`;
  const accept = `${curl} -X POST "$BASE/invites/accept" ${asNewcomer} ${json} -d "{\\"token\\":\\"$INVITE_TOKEN\\"}"`;
  const width = Math.max(...f.services.map(([label]) => label.length));
  return [
    `${READY_PREFIX}${f.baseUrl}`,
    '',
    'Demo tenant (seeded; re-running keeps the same ids):',
    `  organisation  ${f.seed.organizationId}  ${f.organizationName}`,
    `  location      ${f.seed.locationId}  ${f.locationName}`,
    `  admin         ${f.seed.admin.email}  (OrganizationAdmin of the organisation)`,
    `  invitee       ${f.invitee.email}  (not a member yet)`,
    '',
    `Bearer tokens below are HS256, signed with the dev secret AUTH_JWT_SECRET in ${f.secretsFile}; they expire in 12 hours.`,
    ...f.notes,
    '',
    'Try it: paste these lines into bash or zsh.',
    '',
    `BASE=${f.baseUrl}`,
    `ORG=${f.seed.organizationId}`,
    `LOCATION=${f.seed.locationId}`,
    `ADMIN_TOKEN=${f.seed.admin.token}`,
    `NEWCOMER_TOKEN=${f.invitee.token}`,
    `# 1. The admin invites ${f.invitee.email} as Accountant of the outlet: 201, and the invite token, shown this once.`,
    `CREATED=$(${curl} -X POST "$BASE/orgs/$ORG/invites" ${asAdmin} ${json} \\`,
    `  -d "{\\"email\\":\\"${f.invitee.email}\\",\\"roleCode\\":\\"Accountant\\",\\"locationId\\":\\"$LOCATION\\"}"); echo "$CREATED"`,
    `INVITE_TOKEN=$(echo "$CREATED" | sed -n 's/.*"token":"\\([^"]*\\)".*/\\1/p'); echo "INVITE_TOKEN=$INVITE_TOKEN"`,
    `INVITE_ID=$(echo "$CREATED" | sed -n 's/.*"inviteId":"\\([^"]*\\)".*/\\1/p')`,
    '# 2. The admin lists the active invites: 200.',
    `${curl} "$BASE/orgs/$ORG/invites" ${asAdmin}`,
    '# 3. The newcomer accepts with the invite token: 200, and the role is granted in PostgreSQL.',
    accept,
    '# 4. The same accept again, as a client would retry after a lost reply: the same 200, and nothing is granted twice.',
    accept,
    '# 5. The admin tries to cancel the accepted invite: 404 NOT_FOUND (an invite ends exactly once).',
    `${curl} -X DELETE "$BASE/orgs/$ORG/invites/$INVITE_ID" ${asAdmin}`,
    '',
    'Services:',
    ...f.services.map(([label, description]) => `  ${label.padEnd(width)}  ${description}`),
    '',
    `Data lives in ${f.dataDir}${f.stagedDataDir !== undefined ? `, PostgreSQL's in ${f.stagedDataDir}` : ''} ` +
      `(set RUNSTATE_DATA_DIR to put it elsewhere; delete ${f.stagedDataDir !== undefined ? 'both' : 'it'} to start afresh).`,
    `${STOP_PREFIX} (or SIGTERM) stops everything this launcher started: ${f.stoppers.join(', ')}.`,
  ].join('\n');
}
