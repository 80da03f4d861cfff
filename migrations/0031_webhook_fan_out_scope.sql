-- Two corrections to the outbox fan-out of migrations/0028_webhook_endpoints.sql:
-- * An account's own change (the user.* events: a password changed, an MFA factor enrolled or removed) goes to every
--   organisation where the account holds a role, whichever organisation its audit row names: a password reset is
--   audited with the organisation of its link, but the password is the account's, and each of its organisations'
--   endpoints hears of it.
-- * A deleted organisation's endpoints hear nothing more: its rows stay for the record, no new event is written for it.

CREATE OR REPLACE FUNCTION webhook_events_from_audit() RETURNS trigger
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

