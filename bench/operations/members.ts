// The member list: GET /orgs/{orgId}/members, a keyset page of an organisation with many role assignments (target: 0
// main-store round trips, 1 revocation, 2 PostgreSQL: the role check beside the denylist, then the page).
import { uuidv7 } from 'uuidv7';
import { expectStatus, type OperationBench } from '../operation.ts';

const ASSIGNMENTS = 10_000;
const PAGE = 50;

export const listMembersBench: OperationBench = {
  name: 'members.list',
  describe: `GET /orgs/{orgId}/members?cursor= of an organisation with ${ASSIGNMENTS} role assignments, each call a page of ${PAGE} somewhere in it: auth, the role check (which carries the suspension) beside the revocation check, one keyset read`,
  async prepare(stack) {
    const org = await stack.seedOrganization({ bound: true });
    const users = Array.from({ length: ASSIGNMENTS - 1 }, () => uuidv7());
    // Fixtures in two statements, outside the proxies and the timed section.
    await stack.db.query(`INSERT INTO users (id, email) SELECT u, 'bench-' || u || '@example.test' FROM unnest($1::uuid[]) AS u`, [users]);
    await stack.db.query(
      `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code)
       SELECT gen_random_uuid(), u, $2, NULL, 'Viewer' FROM unnest($1::uuid[]) AS u`,
      [users, org.organizationId],
    );
    // Every page's cursor, collected once untimed, so the timed calls read pages all through the list.
    const path = `/orgs/${org.organizationId}/members?limit=${PAGE}`;
    const cursors: Array<string | null> = [null];
    for (;;) {
      const response = await stack.request('GET', `${path}${cursors.at(-1) === null ? '' : `&cursor=${cursors.at(-1)}`}`, {
        token: org.adminToken,
      });
      await expectStatus('members.list (cursors)', response.clone(), 200);
      const { nextCursor } = (await response.json()) as { nextCursor: string | null };
      if (nextCursor === null) break;
      cursors.push(nextCursor);
    }
    if (cursors.length !== ASSIGNMENTS / PAGE) throw new Error(`members.list: expected ${ASSIGNMENTS / PAGE} pages, got ${cursors.length}`);
    return async (i) => {
      const cursor = cursors[i % cursors.length];
      const response = await stack.request('GET', `${path}${cursor === null ? '' : `&cursor=${cursor}`}`, { token: org.adminToken });
      if (i > 0) return expectStatus('members.list', response, 200);
      const listed = response.status === 200 ? ((await response.json()) as { members: unknown[] }).members.length : -1;
      if (listed !== PAGE) throw new Error(`members.list: expected a page of ${PAGE}, got ${listed} (HTTP ${response.status})`);
    };
  },
};

/**
 * A member's role change (PATCH /orgs/{orgId}/members/{userId}), flipping between two roles, in an organisation with
 * `endpoints` enabled webhook endpoints subscribed to member.role_changed: the audit row's trigger then writes the event
 * and a delivery per endpoint in the same statement (migrations/0028_webhook_endpoints.sql). Beside the same change
 * with none, it shows what emitting the event costs: no Redis round trip, no PostgreSQL round trip, only the rows.
 */
function changeRoleBench(name: string, endpoints: number): OperationBench {
  return {
    name,
    describe: `PATCH /orgs/{orgId}/members/{userId} flipping Viewer/Accountant, ${endpoints === 0 ? 'no webhook endpoint' : `${endpoints} webhook endpoints subscribed to member.role_changed (event and deliveries written by the audit trigger)`}`,
    async prepare(stack) {
      const org = await stack.seedOrganization({ bound: true });
      const member = uuidv7();
      await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [member, `bench-${member}@example.test`]);
      await stack.db.query(
        `INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'Viewer')`,
        [uuidv7(), member, org.organizationId],
      );
      for (let i = 0; i < endpoints; i++) {
        await stack.db.query(
          `INSERT INTO webhook_endpoints (id, organization_id, url, events, secret_key_id, secret_ciphertext, secret_version, created_by, created_at, updated_at)
           VALUES ($1, $2, 'https://hooks.example.com/bench', ARRAY['member.role_changed'], 'bench', 'sealed', 1, $3, now(), now())`,
          [uuidv7(), org.organizationId, org.adminId],
        );
      }
      const path = `/orgs/${org.organizationId}/members/${member}`;
      return async (i) => {
        const roleCode = i % 2 === 0 ? 'Accountant' : 'Viewer';
        await expectStatus(name, await stack.request('PATCH', path, { token: org.adminToken, body: { roleCode } }), 200);
      };
    },
  };
}

export const changeRoleBenches: OperationBench[] = [
  changeRoleBench('members.change-role', 0),
  changeRoleBench('members.change-role.webhooks', 3),
];
