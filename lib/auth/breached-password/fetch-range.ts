// One GET of the range API for a 5-hex prefix: `Add-Padding: true`, its own deadline (covering the body), never
// redirected, the body capped. Only the prefix travels; the URL is configuration (lib/config/password-breach.ts).
import { discardBody, readCappedText } from '../../upstream/syrve/body.ts';

/** A padded answer is about 1 000 lines of 40 bytes; 256 KiB tells a range from something that is not one. */
const MAX_ANSWER_BYTES = 256 * 1024;

export type RangeFetch =
  | { ok: true; body: string }
  /** Late (`timeout`), unreachable, a status other than 200 (a redirect included), or a body over the cap or not UTF-8. */
  | { ok: false; failure: 'timeout' | 'unreachable' | 'status' | 'unreadable'; status?: number };

export async function fetchRange(rangeUrl: string, prefix: string, timeoutMs: number): Promise<RangeFetch> {
  // The same signal ends the body read below.
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    // Called through the global: Workers refuses a fetch detached from it.
    response = await fetch(`${rangeUrl}${prefix}`, {
      method: 'GET',
      redirect: 'manual',
      // The API asks every caller to name itself; a request without a user agent may be blocked.
      headers: { 'add-padding': 'true', accept: 'text/plain', 'user-agent': 'runstate-breached-password-check' },
      signal,
    });
  } catch {
    // The error itself is dropped unread: some runtimes put the request URL in it.
    return { ok: false, failure: signal.aborted ? 'timeout' : 'unreachable' };
  }
  if (response.status !== 200) {
    await discardBody(response);
    return { ok: false, failure: 'status', status: response.status };
  }
  let body: string | undefined;
  try {
    body = await readCappedText(response, MAX_ANSWER_BYTES);
  } catch {
    return { ok: false, failure: signal.aborted ? 'timeout' : 'unreachable' };
  }
  return body === undefined ? { ok: false, failure: 'unreadable' } : { ok: true, body };
}
