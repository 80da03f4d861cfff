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
