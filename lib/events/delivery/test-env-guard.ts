// Under APP_ENV=test a delivery leaves only for a loopback address, whatever a test's injected resolver says of a name.
import type { AppEnv } from '../../config/index.ts';
import { classifyHost } from '../../upstream/syrve/address.ts';

/**
 * The URL policy lets a test name public hosts through a fake resolver (to exercise its refusals) and lets loopback
 * through in test; the send itself then resolves the name again, for real. So in test the send goes only to a loopback
 * literal or `localhost`: tests talk to receivers on this machine and nowhere else, by construction.
 */
export function sendableInThisEnv(url: string, appEnv: AppEnv): boolean {
  if (appEnv !== 'test') return true;
  const hostname = new URL(url).hostname.toLowerCase();
  return hostname === 'localhost' || classifyHost(hostname) === 'loopback';
}
