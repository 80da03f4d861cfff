-- One durable outcome per invite, written in the same transaction as the role grant or the cancel audit row.
-- It is what every compensation asks before it puts an invite back, and what a repeated call reads to answer again.

CREATE TABLE invite_outcomes (
  invite_id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id),
  outcome text NOT NULL CHECK (outcome IN ('accepted', 'cancelled')),
  -- The accepting user, or the admin who cancelled.
  actor_user_id uuid NOT NULL,
  location_id uuid NULL,
  role_code text NOT NULL,
  decided_at timestamptz NOT NULL,
  correlation_id text NOT NULL
);

CREATE INDEX invite_outcomes_organization_idx ON invite_outcomes (organization_id);

-- Refuses (SQLSTATE RS409, the held role in DETAIL) a grant where the user already holds another role at that
-- scope, so the accept's transaction rolls back whole; the same role already held is allowed and grants nothing new.
CREATE FUNCTION invite_assert_role_compatible(p_user uuid, p_organization uuid, p_location uuid, p_role text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  held text;
BEGIN
  SELECT role_code INTO held FROM role_assignments
   WHERE user_id = p_user AND organization_id = p_organization AND location_id IS NOT DISTINCT FROM p_location;
  IF held IS NOT NULL AND held <> p_role THEN
    RAISE EXCEPTION 'role conflict' USING ERRCODE = 'RS409', DETAIL = held;
  END IF;
END
$$;
