// Emailing an invitation: the link is built from configuration (INVITE_LINK_BASE) only, the token rides in its fragment,
// and the send is awaited within a deadline so the answer can say whether it went (docs/design/invites.md).
import { errorKind } from '../../log/logger.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { InviteRecord } from './invite-record.ts';

/** The longest a create or resend waits for the notifier before answering `delivery: "failed"`. */
export const INVITE_SEND_DEADLINE_MS = 5_000;

export type DeliveryResult = 'sent' | 'failed';

/** Why an emailed invitation cannot be asked for on this deployment, or undefined when it can. */
export function emailDeliveryUnavailable(deps: Deps): string | undefined {
  if (deps.config.inviteLinkBase === undefined) return 'invite delivery by email (INVITE_LINK_BASE)';
  // staging/prod send through the email API only; dev/test may plug another notifier in (npm start's mailbox folder).
  const production = deps.config.appEnv === 'staging' || deps.config.appEnv === 'prod';
  if (production && deps.config.emailApi === undefined) return 'invite delivery by email (NOTIFY_EMAIL_API_URL)';
  return undefined;
}

/**
 * The organisation's display name for the message. Never rejects (a PostgreSQL failure names "an organisation"), so
 * a caller may start it beside the create and drop it when the create is refused.
 */
export async function readOrganizationName(deps: Deps, organizationId: string): Promise<string> {
  try {
    const rows = await dbCall('read', 'invites.deliver.organization', (signal) =>
      deps.db.query<{ name: string }>('SELECT COALESCE(display_name, name) AS name FROM organizations WHERE id = $1', [organizationId], {
        signal,
      }),
    );
    return rows[0]?.name ?? 'an organisation';
  } catch (error) {
    deps.logger.warn('invite_organization_name_unread', { errorKind: errorKind(error) });
    return 'an organisation';
  }
}

/** Sends the invitation; never throws: a failure is logged (without the message) and answered as 'failed'. */
export async function deliverInvite(
  deps: Deps,
  record: InviteRecord,
  token: string,
  correlationId: string,
  organizationName: Promise<string> = readOrganizationName(deps, record.organizationId),
): Promise<DeliveryResult> {
  const linkBase = deps.config.inviteLinkBase;
  if (linkBase === undefined) return 'failed';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('invite send deadline passed')), INVITE_SEND_DEADLINE_MS);
  });
  try {
    await Promise.race([send(deps, record, await organizationName, `${linkBase}#token=${token}`, correlationId), deadline]);
    return 'sent';
  } catch (error) {
    deps.logger.error('invite_delivery_failed', { errorKind: errorKind(error), correlationId });
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}

function send(deps: Deps, record: InviteRecord, organization: string, link: string, correlationId: string): Promise<void> {
  return deps.notifier.send({
    kind: 'invite',
    to: record.normalizedEmail,
    subject: `You are invited to ${organization}`,
    text:
      `You are invited to join ${organization} as ${record.roleCode}.\n\n` +
      `Open this link before ${record.expiresAtUtc} (UTC) to join: sign in with this email address, or choose a password if you have no account yet:\n\n${link}\n\n` +
      'If you did not expect this invitation, ignore this message.',
    correlationId,
  });
}
