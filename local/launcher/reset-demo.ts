// Puts back what the printed walkthrough changes in the demo tenant, so a restart's walkthrough answers as printed again:
// the demo newcomer is no member, has no active invite, and no endpoint of an earlier walkthrough receives its events.
// APP_ENV=dev only, the demo organisation only, and each undo is the app's own audited operation, done as the demo admin.
import { uuidv7 } from 'uuidv7';
import { members } from '../../lib/auth/members/index.ts';
import type { Deps } from '../../lib/deps.ts';
import { deleteEndpoint } from '../../lib/events/delete-endpoint.ts';
import { invites } from '../../lib/runtime/invites/index.ts';
import { DEMO } from './seed.ts';

export type DemoResetOutcome =
  | { reset: true; endpointsDeleted: number; invitesCancelled: number; memberRemoved: boolean }
  /** Not dev: nothing is touched. */
  | { reset: false };

/** The walkthrough's endpoint: the webhook receiver's address (local/fakes/webhook-receiver.ts), on whatever port it had. */
const WALKTHROUGH_ENDPOINT_URL = '^http://127\\.0\\.0\\.1:[0-9]{1,5}/hooks$';

/** The most active invites one start cancels: the walkthrough makes one; more are a leftover nobody needs either. */
const INVITES_PER_START = 100;

/**
 * Endpoints first, so the removal's `member.removed` is sent to no leftover endpoint. Each step is idempotent and reads
 * what is there now, so a start stopped half-way is finished by the next one.
 */
export async function resetDemoWalkthrough(deps: Deps, input: { adminUserId: string; inviteeUserId: string }): Promise<DemoResetOutcome> {
  if (deps.config.appEnv !== 'dev') return { reset: false };
  const correlationId = uuidv7();
  const organizationId = DEMO.organizationId;
  const actorUserId = input.adminUserId;

  const endpoints = await deps.db.query<{ id: string }>(
    'SELECT id FROM webhook_endpoints WHERE organization_id = $1 AND created_by = $2 AND url ~ $3 ORDER BY id',
    [organizationId, actorUserId, WALKTHROUGH_ENDPOINT_URL],
  );
  let endpointsDeleted = 0;
  for (const { id } of endpoints) {
    if (await deleteEndpoint(deps, { organizationId, endpointId: id, actorUserId, correlationId })) endpointsDeleted += 1;
  }

  const listed = await invites.list(deps, { organizationId, email: DEMO.inviteeEmail, limit: INVITES_PER_START });
  let invitesCancelled = 0;
  for (const invite of listed.ok ? listed.invites : []) {
    const cancelled = await invites.cancel(deps, { organizationId, inviteId: invite.inviteId, actorUserId, correlationId });
    if (cancelled.ok) invitesCancelled += 1;
  }

  const removed = await members.remove(deps, {
    organizationId,
    adminUserId: actorUserId,
    memberUserId: input.inviteeUserId,
    correlationId,
  });
  return { reset: true, endpointsDeleted, invitesCancelled, memberRemoved: removed.ok };
}

/** The line npm start prints when something was put back, or undefined. */
export function describeDemoReset(outcome: DemoResetOutcome): string | undefined {
  if (!outcome.reset) return undefined;
  const done = [
    ...(outcome.memberRemoved ? [`removed ${DEMO.inviteeEmail} from the demo organisation`] : []),
    ...(outcome.invitesCancelled > 0 ? [`cancelled ${count(outcome.invitesCancelled, 'active invite')} for them`] : []),
    ...(outcome.endpointsDeleted > 0 ? [`deleted ${count(outcome.endpointsDeleted, 'webhook endpoint')} an earlier walkthrough made`] : []),
  ];
  return done.length === 0 ? undefined : `put the demo tenant back for the walkthrough (audited, as the demo admin): ${done.join('; ')}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
