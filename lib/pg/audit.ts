// The append-only audit trail: validated events, as a Statement to batch with other writes or written alone.
import * as z from 'zod';
import { uuidv7 } from 'uuidv7';
import type { CallOptions, Db, Statement } from './db.ts';

/** Every audit action there is; later features add theirs here. */
export const AUDIT_ACTIONS = [
  'invite.created',
  'invite.cancelled',
  'invite.accepted',
  'invite.resent',
  'session.revoked',
  'session.created',
  'session.refresh_reused',
  'session.idle_ended',
  'session.revoked_all',
  'session.revoked_by_admin',
  'session.switched',
  'auth.password_reset',
  'mfa.enrolled',
  'mfa.confirmed',
  'auth.oidc_signed_in',
  'auth.oidc_failed',
  'syrve.connection_created',
  'syrve.connection_disabled',
  'syrve.connection_enabled',
  'syrve.connection_tested',
  'syrve.credentials_rotated',
  'syrve.reconnect_exhausted',
  'audit.export_requested',
  'audit.export_cancelled',
  'audit.export_downloaded',
  'tenant.branding_updated',
  'tenant.domains_updated',
  'tenant.suspended',
  'tenant.reactivated',
  'tenant.cache_invalidated',
  'tenant.deleted',
  'member.role_changed',
  'member.removed',
  'user.registered',
  'auth.handoff_exchanged',
  'mfa.recovery_code_used',
  'mfa.recovery_codes_replaced',
  'mfa.removed',
  'mfa.reset_by_operator',
  'tenant.domain_verified',
  'ratelimit.lifted',
  'policy.changed',
  'passkey.registered',
  'passkey.removed',
  'passkey.counter_regressed',
  'member.added',
  'invite.expired',
  'audit.export_finished',
  'webhook.endpoint_created',
  'webhook.endpoint_updated',
  'webhook.endpoint_deleted',
  'webhook.secret_rotated',
  'webhook.delivery_retried',
  'signing_keys.rotated',
  'api_key.created',
  'api_key.updated',
  'api_key.revoked',
  'api_key.rolled',
  'webhook.delivery_failed',
  'webhook.endpoint_disabled',
] as const;

// Detail keys that name secret material are refused outright: audit rows must never carry
// a token, password, secret or session id, whatever its value looks like.
const FORBIDDEN_DETAIL_KEY = /token|passw|secret|session|cookie|authoriz|api_?key|private_?key|^sid$|^jti$/i;

const detailValue = z.union([z.string().max(256), z.number(), z.boolean(), z.null()]);

const details = z
  .record(
    z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'detail keys are identifiers of up to 64 characters')
      .refine((key) => !FORBIDDEN_DETAIL_KEY.test(key), 'detail key names secret material'),
    detailValue,
  )
  .refine((record) => Object.keys(record).length <= 20, 'at most 20 details');

const auditEventSchema = z
  .strictObject({
    action: z.enum(AUDIT_ACTIONS),
    actorUserId: z.uuid().nullable(),
    /** An organisation's API key that acted (audit_events.actor_api_key_id, migrations/0030_api_keys.sql); then no user did. */
    actorApiKeyId: z.uuid().nullable().optional(),
    organizationId: z.uuid().nullable(),
    locationId: z.uuid().nullable(),
    targetId: z.uuid().nullable(),
    correlationId: z.string().regex(/^[\x21-\x7e]{1,128}$/, 'correlation id: 1–128 visible ASCII characters'),
    details: details.optional(),
  })
  .refine((event) => event.actorApiKeyId == null || event.actorUserId === null, 'a key acting is the only actor: actorUserId null');

/** What happened, who did it, in which tenant, and a few safe scalar details. */
export type AuditEvent = z.infer<typeof auditEventSchema>;

/**
 * The actor columns for an action a person or a key may take: the key when one acted (the person in whose name it acts
 * is on the key's row), else the person (docs/design/api-keys.md#scopes).
 */
export function auditActor(userId: string, apiKeyId: string | undefined): Pick<AuditEvent, 'actorUserId' | 'actorApiKeyId'> {
  return apiKeyId === undefined ? { actorUserId: userId } : { actorUserId: null, actorApiKeyId: apiKeyId };
}

/** A programming error (bad event), so callers can tell it apart from an unreachable database. */
export class InvalidAuditEventError extends Error {
  constructor(reason: string) {
    super(`invalid audit event: ${reason}`);
    this.name = 'InvalidAuditEventError';
  }
}

/**
 * The INSERT for one audit event, for `db.transaction([...])` alongside the change it records.
 * Throws InvalidAuditEventError when the event is invalid (unknown action, non-UUID ids, nested or secret-named details).
 * The row id is a UUIDv7, so ids sort by creation time.
 */
export function auditStatement(event: AuditEvent, now: Date): Statement {
  const parsed = auditEventSchema.safeParse(event);
  if (!parsed.success) {
    throw new InvalidAuditEventError(z.prettifyError(parsed.error));
  }
  if (Number.isNaN(now.getTime())) throw new InvalidAuditEventError('occurred-at time is not a date');
  const valid = parsed.data;
  // The key's column only when a key acted, so every other statement stays as it was.
  const byKey = valid.actorApiKeyId != null;
  return {
    text:
      'INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, ' +
      `action, correlation_id, details${byKey ? ', actor_api_key_id' : ''}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb${byKey ? ', $10' : ''})`,
    params: [
      uuidv7(),
      now.toISOString(),
      valid.actorUserId,
      valid.organizationId,
      valid.locationId,
      valid.targetId,
      valid.action,
      valid.correlationId,
      JSON.stringify(valid.details ?? {}),
      ...(byKey ? [valid.actorApiKeyId] : []),
    ],
  };
}

/** Writes one audit event on its own (one round trip) and returns the new row's id. */
export async function writeAudit(db: Db, event: AuditEvent, now: Date, options: CallOptions = {}): Promise<{ id: string }> {
  const statement = auditStatement(event, now);
  await db.query(statement.text, statement.params, options);
  return { id: statement.params[0] as string };
}

/**
 * The audit INSERT … SELECT for a statement that changes rows and records how many in the same step (a data-modifying
 * WITH, one round trip): validated like auditStatement, with the detail `count.detail` filled in by PostgreSQL from
 * `count.sql` (an expression over that statement's own CTEs), and written only when `count.when` holds. Its parameters
 * are numbered from `firstParam`, after the statement's own. `count.sql` and `count.when` are SQL of the caller's code,
 * never input; the detail's name passed the identifier rule, so it is safe to place in the text.
 */
export function countedAuditInsert(
  event: AuditEvent,
  now: Date,
  count: { detail: string; sql: string; when?: string },
  firstParam: number,
): Statement {
  return computedAuditInsert(
    event,
    now,
    { computed: { [count.detail]: count.sql }, ...(count.when === undefined ? {} : { when: count.when }) },
    firstParam,
  );
}

/**
 * The audit INSERT … SELECT for a data-modifying WITH that records a change only when it happened: written when `when`
 * (SQL of the caller's code over that statement's own CTEs, never input) holds, and not at all otherwise. Validated
 * like auditStatement; parameters numbered from `firstParam`, after the statement's own.
 */
export function conditionalAuditInsert(event: AuditEvent, now: Date, when: string, firstParam: number): Statement {
  return computedAuditInsert(event, now, { computed: {}, when }, firstParam);
}

/**
 * countedAuditInsert with several details filled in by PostgreSQL: `computed` maps each detail's name to an SQL
 * expression over the statement's own CTEs (a role read under a lock, a count of revoked rows). The same rules hold: the
 * names pass the identifier and secret-name checks, the expressions are the caller's code, never input.
 */
export function computedAuditInsert(
  event: AuditEvent,
  now: Date,
  spec: { computed: Readonly<Record<string, string>>; when?: string },
  firstParam: number,
): Statement {
  const names = Object.keys(spec.computed);
  const { params } = auditStatement(
    { ...event, details: { ...event.details, ...Object.fromEntries(names.map((name) => [name, 0])) } },
    now,
  );
  const p = (index: number) => `$${firstParam + index}`;
  const built = names.map((name) => `'${name}', (${spec.computed[name]})`).join(', ');
  const byKey = params.length > 9;
  return {
    text:
      'INSERT INTO audit_events (id, occurred_at, actor_user_id, organization_id, location_id, target_id, action, correlation_id, ' +
      `${byKey ? 'actor_api_key_id, ' : ''}details) ` +
      `SELECT ${p(0)}::uuid, ${p(1)}::timestamptz, ${p(2)}::uuid, ${p(3)}::uuid, ${p(4)}::uuid, ${p(5)}::uuid, ${p(6)}::text, ${p(7)}::text, ` +
      `${byKey ? `${p(9)}::uuid, ` : ''}${p(8)}::jsonb` +
      (names.length === 0 ? '' : ` || jsonb_build_object(${built})`) +
      (spec.when === undefined ? '' : ` WHERE ${spec.when}`),
    params,
  };
}
