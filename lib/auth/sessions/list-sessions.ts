// The session inventory: a user's own live sessions (GET /auth/sessions), and a member's live sessions bound to one
// organisation, for its admin (GET /orgs/{orgId}/members/{userId}/sessions). Session ids are shown to the people who
// may end those sessions, never written to the audit trail or a log.
import * as z from 'zod';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { Authentication } from '../authentication.ts';
import { SIGN_IN_METHODS } from './open-session.ts';

/** The most recent sessions a list shows; a user signs in far fewer times than this within a session's life. */
export const SESSION_LIST_LIMIT = 100;

export const memberSessionSchema = z.object({
  id: z.uuid(),
  createdAt: z.iso.datetime().describe('When the session was opened (sign-in).'),
  lastSeenAt: z.iso.datetime().describe('Its last refresh, or its opening; the idle timeout counts from here.'),
  userAgent: z.string().nullable().describe('The User-Agent it was opened with, control characters removed, at most 256 characters.'),
  organizationId: z.uuid().describe('The organisation it was opened in.'),
  method: z.enum(SIGN_IN_METHODS).nullable().describe('How it was opened; null for a session opened before this was recorded.'),
});

export const ownSessionSchema = memberSessionSchema.extend({
  current: z.boolean().describe('True for the session of the token that asked.'),
});

export type MemberSession = z.infer<typeof memberSessionSchema>;
export type OwnSession = z.infer<typeof ownSessionSchema>;

interface SessionRow {
  id: string;
  created_at: Date | string;
  last_seen_at: Date | string;
  user_agent: string | null;
  organization_id: string;
  method: MemberSession['method'];
}

/**
 * Live: not revoked, before its end, refreshed within the idle timeout, of an organisation that is not deleted — a
 * session whose refresh token would still be exchanged (a suspended organisation's session is live: it resumes once
 * reactivated). Sessions of an identity provider have no end here and are not listed. $2 is now, $3 now − idle timeout.
 */
const LIVE = `s.revoked_at IS NULL AND s.expires_at > $2::timestamptz
  AND COALESCE(s.last_seen_at, s.created_at) > $3::timestamptz
  AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = s.organization_id AND o.state <> 'deleted')`;

const COLUMNS = `s.id, s.created_at, COALESCE(s.last_seen_at, s.created_at) AS last_seen_at, s.user_agent, s.organization_id, s.method`;

/** The caller's live sessions, newest first: read beside the revocation check, handed out only once it passed. */
export async function listOwnSessions(deps: Deps, auth: Authentication): Promise<OwnSession[]> {
  const [now, idleCutoff] = liveBounds(deps);
  const pending = dbCall('read', 'auth.sessions.list', (signal) =>
    deps.db.query<SessionRow>(
      // Served by sessions_user_open_idx (migrations/0008): the user's sessions not revoked.
      `SELECT ${COLUMNS} FROM sessions s
        WHERE s.user_id = $1 AND ${LIVE}
        ORDER BY s.created_at DESC, s.id DESC LIMIT $4`,
      [auth.claimedUserId, now, idleCutoff, SESSION_LIST_LIMIT],
      { signal },
    ),
  );
  pending.catch(() => undefined);
  const principal = await auth.principal();
  return (await pending).map((row) => ({ ...toSession(row), current: row.id === principal.sessionId }));
}

export type MemberSessionsOutcome = { ok: true; sessions: MemberSession[] } | { ok: false; reason: 'not-a-member' };

/**
 * A member's live sessions bound to this organisation (sessions.organization_id), for its admin (already authorised):
 * every session of this deployment that can act here, since a session bound elsewhere is refused here
 * (docs/design/tenants.md#tenant-isolation). Never one bound to another organisation the user also belongs to, nor an
 * identity provider's (its tokens carry no organisation: removing the member's role ends what they can do here). A user
 * who holds no role here is 'not-a-member', whatever sessions they have.
 */
export async function listMemberSessions(
  deps: Deps,
  input: { organizationId: string; memberUserId: string },
): Promise<MemberSessionsOutcome> {
  const [now, idleCutoff] = liveBounds(deps);
  const rows = await dbCall('read', 'auth.sessions.listMember', (signal) =>
    deps.db.query<{ member: boolean; sessions: SessionRow[] | null }>(
      `SELECT EXISTS (SELECT 1 FROM role_assignments WHERE user_id = $1 AND organization_id = $5) AS member,
              (SELECT json_agg(page ORDER BY page.created_at DESC, page.id DESC) FROM (
                 SELECT ${COLUMNS} FROM sessions s
                  WHERE s.user_id = $1 AND s.organization_id = $5 AND ${LIVE}
                  ORDER BY s.created_at DESC, s.id DESC LIMIT $4) page) AS sessions`,
      [input.memberUserId, now, idleCutoff, SESSION_LIST_LIMIT, input.organizationId],
      { signal },
    ),
  );
  const row = rows[0];
  if (row?.member !== true) return { ok: false, reason: 'not-a-member' };
  return { ok: true, sessions: (row.sessions ?? []).map(toSession) };
}

function liveBounds(deps: Deps): [string, string] {
  const nowMs = deps.clock.now();
  return [new Date(nowMs).toISOString(), new Date(nowMs - deps.config.signIn.sessionIdleTimeoutSeconds * 1000).toISOString()];
}

function toSession(row: SessionRow): MemberSession {
  return {
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    lastSeenAt: new Date(row.last_seen_at).toISOString(),
    userAgent: row.user_agent,
    organizationId: row.organization_id,
    method: row.method,
  };
}
