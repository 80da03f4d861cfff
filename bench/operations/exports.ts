// The export list: GET /orgs/{orgId}/audit/exports, a keyset page of an organisation's exports in every state (target:
// 0 main-store round trips, 1 revocation, 2 PostgreSQL: the role check beside the denylist, then the page).
import { expectStatus, type OperationBench } from '../operation.ts';

/** A busy organisation's week of exports (retention keeps finished ones 7 days), all finished: a queued one would be
 * claimed by the jobs.claim bench's worker. */
const EXPORTS = 200;
const PAGE = 20;

export const listExportsBench: OperationBench = {
  name: 'audit.exports.list',
  describe: `GET /orgs/{orgId}/audit/exports?cursor= of an organisation with ${EXPORTS} exports, each call a page of ${PAGE} somewhere in it: auth, the role check beside the revocation check, one keyset read with who asked`,
  async prepare(stack) {
    const org = await stack.seedOrganization({ bound: true });
    // Written straight in, outside the proxies and the timed section: only what the list reads.
    await stack.db.query(
      `INSERT INTO jobs (id, organization_id, kind, state, requested_by_user_id, correlation_id, until_occurred_at, rows_total,
                         rows_done, created_at, finished_at)
       SELECT gen_random_uuid(), $1, 'audit-export', 'done', $2, 'bench', now(), 500, 500, now() - g * interval '50 minutes',
              now() - g * interval '50 minutes' + interval '5 minutes'
         FROM generate_series(1, $3::int) g`,
      [org.organizationId, org.adminId, EXPORTS],
    );
    await stack.db.query('ANALYZE jobs');
    // Every page's cursor, collected once untimed, so the timed calls read pages all through the list.
    const path = `/orgs/${org.organizationId}/audit/exports?limit=${PAGE}`;
    const cursors: Array<string | null> = [null];
    for (;;) {
      const response = await stack.request('GET', `${path}${cursors.at(-1) === null ? '' : `&cursor=${cursors.at(-1)}`}`, {
        token: org.adminToken,
      });
      await expectStatus('audit.exports.list (cursors)', response.clone(), 200);
      const { nextCursor } = (await response.json()) as { nextCursor: string | null };
      if (nextCursor === null) break;
      cursors.push(nextCursor);
    }
    if (cursors.length !== EXPORTS / PAGE) throw new Error(`audit.exports.list: got ${cursors.length} pages`);
    return async (i) => {
      const cursor = cursors[i % cursors.length];
      const response = await stack.request('GET', `${path}${cursor === null ? '' : `&cursor=${cursor}`}`, { token: org.adminToken });
      return expectStatus('audit.exports.list', response, 200);
    };
  },
};
