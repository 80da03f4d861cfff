// The organisation events an endpoint may subscribe to, and the audit actions each one follows from.
import type { AUDIT_ACTIONS } from '../pg/audit.ts';

/** Every event type; migrations/0028_webhook_endpoints.sql (webhook_event_types) holds the same list. */
export const EVENT_TYPES = [
  'member.added',
  'member.role_changed',
  'member.removed',
  'invite.created',
  'invite.accepted',
  'invite.cancelled',
  'invite.expired',
  'session.revoked',
  'user.mfa_enrolled',
  'user.mfa_removed',
  'user.password_changed',
  'passkey.registered',
  'syrve.circuit_opened',
  'export.finished',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Which audit row makes which event: the trigger of migrations/0028_webhook_endpoints.sql (webhook_event_type) writes
 * the event in the audit row's transaction, so this is documentation the unit tests hold to that SQL. A row of an
 * organisation goes to it; a row of none (a user's own MFA, password, passkey, sessions) goes to every organisation
 * where its target user holds a role.
 */
export const EVENT_TYPE_OF_AUDIT_ACTION = {
  'member.added': 'member.added',
  'member.role_changed': 'member.role_changed',
  'member.removed': 'member.removed',
  'invite.created': 'invite.created',
  'invite.accepted': 'invite.accepted',
  'invite.cancelled': 'invite.cancelled',
  'invite.expired': 'invite.expired',
  'session.revoked': 'session.revoked',
  'session.revoked_all': 'session.revoked',
  'session.revoked_by_admin': 'session.revoked',
  'mfa.confirmed': 'user.mfa_enrolled',
  'mfa.removed': 'user.mfa_removed',
  'mfa.reset_by_operator': 'user.mfa_removed',
  'auth.password_reset': 'user.password_changed',
  'passkey.registered': 'passkey.registered',
  'syrve.reconnect_exhausted': 'syrve.circuit_opened',
  'audit.export_finished': 'export.finished',
} as const satisfies Partial<Record<(typeof AUDIT_ACTIONS)[number], EventType>>;
