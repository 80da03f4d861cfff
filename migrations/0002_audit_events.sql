-- The audit trail: one row per security-relevant action, append-only (no UPDATE, DELETE or TRUNCATE).

CREATE TABLE audit_events (
  id uuid PRIMARY KEY,
  occurred_at timestamptz NOT NULL,
  actor_user_id uuid NULL,
  organization_id uuid NULL,
  location_id uuid NULL,
  target_id uuid NULL,
  action text NOT NULL,
  correlation_id text NOT NULL,
  -- Flat, safe scalars only (validated in lib/pg/audit.ts); never tokens, session ids, secrets or bodies.
  details jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object')
);

CREATE INDEX audit_events_organization_time_idx ON audit_events (organization_id, occurred_at DESC);

CREATE FUNCTION audit_events_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER audit_events_no_update_or_delete
  BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change();

CREATE TRIGGER audit_events_no_truncate
  BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();
