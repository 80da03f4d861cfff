// The revocation check reads PostgreSQL's revocation clock at most once a second per isolate, beside the check
// (lib/runtime/revocation/revocation-clock.ts): a test that counts an operation's PostgreSQL requests leaves those out.
import type { NeonProxyStats } from '../../local/emulators/neon/faults.ts';

const CLOCK_READ = /^SELECT seq, greatest\(0, extract\(epoch FROM clock_timestamp\(\) - advanced_at\)/;

/** The `/sql` requests since the proxy's last reset that were the revocation clock's read. */
export function clockReads(stats: Pick<NeonProxyStats, 'requestTexts'>): number {
  return stats.requestTexts.filter((text) => CLOCK_READ.test(text.trim())).length;
}
