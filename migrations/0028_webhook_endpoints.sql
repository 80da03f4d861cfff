-- Signed webhooks out (docs/design/events.md): an organisation's endpoints, the outbox of events and one delivery per
-- endpoint and event. Every event is written by a trigger on audit_events, in the transaction of the audit row that
-- records the change: a change that rolls back leaves no event, and no change that is audited can forget its event.

-- The event types an endpoint may subscribe to; lib/events/event-types.ts holds the same list (a unit test compares).
CREATE FUNCTION webhook_event_types() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY[
    'member.added', 'member.role_changed', 'member.removed',
    'invite.created', 'invite.accepted', 'invite.cancelled', 'invite.expired',
    'session.revoked',
    'user.mfa_enrolled', 'user.mfa_removed', 'user.password_changed',
    'passkey.registered',
    'syrve.circuit_opened',
    'export.finished'
  ]::text[]
$$;

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  url text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
  description text NULL CHECK (char_length(description) BETWEEN 1 AND 256),
  -- The subscribed event types: at least one, each known, no NULL.
  events text[] NOT NULL CHECK (
    cardinality(events) >= 1 AND events <@ webhook_event_types() AND array_position(events, NULL) IS NULL),
  -- The whsec_ signing secret, sealed by lib/crypto/secret-box.ts ('webhook-secret': organisation, endpoint, version).
  secret_key_id text NOT NULL,
  secret_ciphertext text NOT NULL,
  secret_version integer NOT NULL CHECK (secret_version >= 1),
  -- After a rotation the secret it replaced still signs beside the new one until previous_secret_until (24 h).
  previous_secret_key_id text NULL,
  previous_secret_ciphertext text NULL,
  previous_secret_version integer NULL CHECK (previous_secret_version >= 1),
  previous_secret_until timestamptz NULL,
  CONSTRAINT webhook_endpoints_previous_secret_whole CHECK (
    (previous_secret_key_id IS NULL) = (previous_secret_ciphertext IS NULL)
    AND (previous_secret_key_id IS NULL) = (previous_secret_version IS NULL)
    AND (previous_secret_key_id IS NULL) = (previous_secret_until IS NULL)),
  state text NOT NULL DEFAULT 'enabled' CHECK (state IN ('enabled', 'disabled')),
  -- 'admin': an admin disabled it (PATCH); 'failing': the delivery engine did, after failing for days.
  disabled_reason text NULL CHECK (disabled_reason IN ('admin', 'failing')),
  CONSTRAINT webhook_endpoints_disabled_has_reason CHECK ((state = 'disabled') = (disabled_reason IS NOT NULL)),
  -- The first failed delivery since the last success; NULL while it succeeds.
  failing_since timestamptz NULL,
  created_by uuid NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- The organisation's endpoints in id order (the list), and the trigger's lookup of the enabled ones.
CREATE INDEX webhook_endpoints_organization_idx ON webhook_endpoints (organization_id, id);

-- The outbox: one event per audit row and receiving organisation, its payload in the Standard Webhooks shape
-- {type, timestamp, data} with ids and safe details only (never a secret or a token: audit details cannot hold one).
CREATE TABLE webhook_events (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  type text NOT NULL,
  occurred_at timestamptz NOT NULL,
  audit_event_id uuid NOT NULL,
  payload jsonb NOT NULL CHECK (jsonb_typeof(payload) = 'object'),
  UNIQUE (audit_event_id, organization_id)
);

-- One endpoint's copy of one event. Its id (a UUIDv7) is what the webhook-id header is derived from, so it is the
-- same on every attempt. The backoff runs from schedule_started_at: the delivery's creation, or an admin's retry.
CREATE TABLE webhook_endpoint_deliveries (
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NULL,
  last_attempt_at timestamptz NULL,
  last_status integer NULL CHECK (last_status BETWEEN 100 AND 599),
  -- A short reason of ours (a status class, a timeout), never the receiver's body.
  last_error text NULL CHECK (char_length(last_error) <= 200),
  created_at timestamptz NOT NULL,
  schedule_started_at timestamptz NOT NULL,
  ended_at timestamptz NULL,
  CONSTRAINT webhook_deliveries_ended_when_done CHECK ((state = 'pending') = (ended_at IS NULL)),
  CONSTRAINT webhook_deliveries_pending_is_due CHECK (state <> 'pending' OR next_attempt_at IS NOT NULL),
  UNIQUE (endpoint_id, event_id)
);

-- The pending deliveries of an organisation that are due (the delivery engine, bounded per organisation per run).
CREATE INDEX webhook_deliveries_due_idx ON webhook_endpoint_deliveries (organization_id, next_attempt_at) WHERE state = 'pending';
-- An endpoint's deliveries newest first (GET …/deliveries, keyset on the id).
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_endpoint_deliveries (endpoint_id, id DESC);
-- An event's deliveries (the cascade of webhook_events, the payload's lookup).
CREATE INDEX webhook_deliveries_event_idx ON webhook_endpoint_deliveries (event_id);

-- A UUIDv7 at a given time (PostgreSQL 15 has none built in): 48 bits of unix milliseconds, version 7, then random.
CREATE FUNCTION webhook_uuidv7(p_at timestamptz) RETURNS uuid
LANGUAGE sql VOLATILE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send(floor(extract(epoch FROM p_at) * 1000)::bigint) FROM 3)
        FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;

-- The mapping of audit actions (lib/pg/audit.ts) to event types; lib/events/event-types.ts holds the same mapping (a
-- unit test compares). One line per action, in this form, so the test can read it.
CREATE FUNCTION webhook_event_type(p_action text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_action
    WHEN 'member.added' THEN 'member.added'
    WHEN 'member.role_changed' THEN 'member.role_changed'
    WHEN 'member.removed' THEN 'member.removed'
    WHEN 'invite.created' THEN 'invite.created'
    WHEN 'invite.accepted' THEN 'invite.accepted'
    WHEN 'invite.cancelled' THEN 'invite.cancelled'
    WHEN 'invite.expired' THEN 'invite.expired'
    WHEN 'session.revoked' THEN 'session.revoked'
    WHEN 'session.revoked_all' THEN 'session.revoked'
    WHEN 'session.revoked_by_admin' THEN 'session.revoked'
    WHEN 'mfa.confirmed' THEN 'user.mfa_enrolled'
    WHEN 'mfa.removed' THEN 'user.mfa_removed'
    WHEN 'mfa.reset_by_operator' THEN 'user.mfa_removed'
    WHEN 'auth.password_reset' THEN 'user.password_changed'
    WHEN 'passkey.registered' THEN 'passkey.registered'
    WHEN 'syrve.reconnect_exhausted' THEN 'syrve.circuit_opened'
    WHEN 'audit.export_finished' THEN 'export.finished'
  END
$$;

-- The audit details an event's data carries, by event type (the rest of a row's details stay in the audit trail).
CREATE FUNCTION webhook_event_detail_keys(p_type text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_type
    WHEN 'member.added' THEN ARRAY['roleCode', 'inviteId']
    WHEN 'member.role_changed' THEN ARRAY['fromRole', 'toRole']
    WHEN 'invite.created' THEN ARRAY['roleCode', 'expiresAtUtc']
    WHEN 'invite.accepted' THEN ARRAY['roleCode']
    WHEN 'invite.cancelled' THEN ARRAY['roleCode', 'reason']
    WHEN 'invite.expired' THEN ARRAY['roleCode', 'expiresAtUtc']
    WHEN 'passkey.registered' THEN ARRAY['passkeyId']
    WHEN 'syrve.circuit_opened' THEN ARRAY['statusCode', 'attemptCount']
    WHEN 'export.finished' THEN ARRAY['outcome', 'rows']
    ELSE ARRAY[]::text[]
  END
$$;

-- What the audit row's target_id is, named in the event's data.
CREATE FUNCTION webhook_event_subject_key(p_type text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE split_part(p_type, '.', 1)
    WHEN 'invite' THEN 'inviteId'
    WHEN 'syrve' THEN 'connectionId'
    WHEN 'export' THEN 'exportId'
    ELSE 'userId'
  END
$$;

-- The fan-out. An organisation's row gives its organisation; a row of no organisation (the user's own MFA, password,
-- passkey or sessions), and every user.* event whatever organisation its row names (a password reset is audited with
-- its link's organisation, but the password is the account's), goes to every organisation where its target user holds
-- a role at that moment. A deleted organisation hears nothing more. For each one with an enabled endpoint subscribed to
-- the type: the event once, and a pending delivery per such endpoint, due at the row's time. No endpoint, nothing
-- written.
CREATE FUNCTION webhook_events_from_audit() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_type text := webhook_event_type(NEW.action);
  v_data jsonb;
BEGIN
  v_data := jsonb_build_object(
      'auditEventId', NEW.id,
      'auditAction', NEW.action,
      'actorUserId', NEW.actor_user_id,
      webhook_event_subject_key(v_type), NEW.target_id)
    || CASE WHEN NEW.location_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('locationId', NEW.location_id) END
    || COALESCE((SELECT jsonb_object_agg(d.key, d.value) FROM jsonb_each(NEW.details) d
                  WHERE d.key = ANY (webhook_event_detail_keys(v_type))), '{}'::jsonb);
  WITH targets AS (
    SELECT e.id AS endpoint_id, e.organization_id
      FROM webhook_endpoints e
     WHERE e.state = 'enabled' AND v_type = ANY (e.events)
       AND CASE WHEN NEW.organization_id IS NOT NULL AND v_type NOT LIKE 'user.%' THEN e.organization_id = NEW.organization_id
                ELSE NEW.target_id IS NOT NULL AND e.organization_id IN (
                  SELECT r.organization_id FROM role_assignments r WHERE r.user_id = NEW.target_id) END
       AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = e.organization_id AND o.state <> 'deleted')
  ), events AS (
    INSERT INTO webhook_events (id, organization_id, type, occurred_at, audit_event_id, payload)
    SELECT webhook_uuidv7(NEW.occurred_at), o.organization_id, v_type, NEW.occurred_at, NEW.id,
           jsonb_build_object(
             'type', v_type,
             'timestamp', to_char(NEW.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'data', v_data || jsonb_build_object('organizationId', o.organization_id))
      FROM (SELECT DISTINCT organization_id FROM targets) o
    RETURNING id, organization_id
  )
  INSERT INTO webhook_endpoint_deliveries (id, endpoint_id, event_id, organization_id, state, attempts, next_attempt_at,
                                           created_at, schedule_started_at)
  SELECT webhook_uuidv7(NEW.occurred_at), t.endpoint_id, ev.id, t.organization_id, 'pending', 0, NEW.occurred_at,
         NEW.occurred_at, NEW.occurred_at
    FROM targets t JOIN events ev ON ev.organization_id = t.organization_id;
  RETURN NULL;
END
$$;

-- Only the mapped actions run the function at all: every other audit row costs one IMMUTABLE CASE.
CREATE TRIGGER audit_events_to_webhook_events
  AFTER INSERT ON audit_events
  FOR EACH ROW WHEN (webhook_event_type(NEW.action) IS NOT NULL)
  EXECUTE FUNCTION webhook_events_from_audit();

-- The bound on an organisation's endpoints, checked under a lock of that organisation's endpoints only (a
-- transaction-scoped advisory lock, so two creates cannot both see room for one). RS413: no room.
CREATE FUNCTION webhook_endpoint_assert_room(p_organization_id uuid, p_max integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || p_organization_id::text, 0));
  IF (SELECT count(*) FROM webhook_endpoints WHERE organization_id = p_organization_id) >= p_max THEN
    RAISE EXCEPTION 'too many webhook endpoints' USING ERRCODE = 'RS413';
  END IF;
END
$$;
