// How far an organisation's keys have changed, as this isolate last read it from PostgreSQL: read at most once a second,
// beside the key check (never before it), so a cached entry older than the last change is never used for long.
import type { Config } from '../../config/index.ts';
import type { Deps } from '../../deps.ts';
import { dbCall } from '../../pg/unavailable.ts';

/** One read per organisation per isolate in this time at most: a change is refused everywhere within it (plus its commit). */
export const ORG_KEY_SEQ_READ_EVERY_MS = 1_000;
/** Bounds the organisations remembered per isolate; the oldest go first. */
const MAX_ORGS = 10_000;

export interface OrgKeyView {
  /** organizations.api_key_seq (migrations/0030_api_keys.sql). */
  seq: number;
  /** The organisation's state; undefined when there is no such organisation. */
  state: 'active' | 'suspended' | 'deleted' | undefined;
  readAtMs: number;
}

const views = new WeakMap<Config, Map<string, OrgKeyView>>();

function viewsOf(config: Config): Map<string, OrgKeyView> {
  let map = views.get(config);
  if (map === undefined) {
    map = new Map();
    views.set(config, map);
  }
  return map;
}

/** The last view of `organizationId` while it is younger than a second, without a read; undefined otherwise. */
export function freshOrgKeyView(deps: Deps, organizationId: string): OrgKeyView | undefined {
  const view = viewsOf(deps.config).get(organizationId);
  return view !== undefined && deps.clock.now() - view.readAtMs < ORG_KEY_SEQ_READ_EVERY_MS ? view : undefined;
}

/** The highest seq this isolate has seen for `organizationId`, however old (a seq never goes back); 0 when none. */
export function knownOrgKeySeq(deps: Deps, organizationId: string): number {
  return viewsOf(deps.config).get(organizationId)?.seq ?? 0;
}

/**
 * The view, read from PostgreSQL when the last one is a second old. Concurrent callers of one isolate share one read.
 * A read that fails rejects (DatabaseUnavailableError): the caller fails closed.
 */
export async function orgKeyView(deps: Deps, organizationId: string): Promise<OrgKeyView> {
  const fresh = freshOrgKeyView(deps, organizationId);
  if (fresh !== undefined) return fresh;
  return deps.inflight.run(`apikey.orgSeq:${organizationId}`, async () => {
    const startedMs = deps.clock.now();
    const rows = await dbCall('read', 'apiKeys.orgSeq', (signal) =>
      deps.db.query<{ api_key_seq: string; state: OrgKeyView['state'] }>(
        'SELECT api_key_seq, state FROM organizations WHERE id = $1',
        [organizationId],
        { signal },
      ),
    );
    const row = rows[0];
    return noteOrgKeyView(deps, organizationId, {
      seq: row === undefined ? 0 : Number(row.api_key_seq),
      state: row?.state,
      readAtMs: startedMs,
    });
  });
}

/** Keeps what a read found (a key's own read brings the same columns), never moving the seq back. */
export function noteOrgKeyView(deps: Deps, organizationId: string, view: OrgKeyView): OrgKeyView {
  const map = viewsOf(deps.config);
  const known = map.get(organizationId);
  const kept = known !== undefined && known.seq > view.seq ? { ...view, seq: known.seq } : view;
  map.delete(organizationId);
  map.set(organizationId, kept);
  if (map.size > MAX_ORGS) map.delete(map.keys().next().value as string);
  return kept;
}
