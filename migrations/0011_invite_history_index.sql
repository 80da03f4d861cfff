-- The invite history (lib/runtime/invites/invite-history.ts) pages an organisation's invite.* audit events newest first
-- by (occurred_at, id). audit_events_organization_time_idx orders them too, but reads every other event of the
-- organisation on the way (sign-ins, sessions, Syrve: most of its rows) and sorts ties on id; this partial index holds
-- the invite events alone, in page order, so a page reads its own rows and the cursor is an index condition. Built
-- inside the migration's transaction (no CONCURRENTLY), which holds audit writes for as long as building it takes: on a
-- large audit_events table, create it by hand first with CREATE INDEX CONCURRENTLY and this definition, and the
-- migration finds it there.
CREATE INDEX IF NOT EXISTS audit_events_invite_history_idx
  ON audit_events (organization_id, occurred_at DESC, id DESC)
  WHERE action LIKE 'invite.%';
