// invites: Redis-only runtime objects (TTL exactly 3 h) with their audit trail in PostgreSQL.
import { acceptInvite } from './accept-invite.ts';
import { cancelInvite } from './cancel-invite.ts';
import { cancelOrganizationInvites } from './cancel-organization-invites.ts';
import { createInvite } from './create-invite.ts';
import { deliverInvite, emailDeliveryUnavailable, readOrganizationName } from './deliver-invite.ts';
import { listInvites } from './list-invites.ts';
import { readInviteHistory } from './invite-history.ts';
import { reconcileInvites } from './reconcile-invites.ts';
import { resendInvite } from './resend-invite.ts';

export const invites = {
  create: createInvite,
  list: listInvites,
  history: readInviteHistory,
  cancel: cancelInvite,
  cancelAll: cancelOrganizationInvites,
  accept: acceptInvite,
  reconcile: reconcileInvites,
  resend: resendInvite,
  deliver: deliverInvite,
  emailDeliveryUnavailable,
  organizationName: readOrganizationName,
};
export { inviteSchema } from './invite-record.ts';
export { LIST_INVITES } from './list-invites.ts';
export { inviteIndexCleanupTask } from './cleanup-indexes.ts';
export { inviteReconcileTask } from './reconcile-task.ts';
export { inviteExpiryTask } from './expire-invites.ts';
