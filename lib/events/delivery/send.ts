// One POST of a signed delivery: a deadline, no redirect followed, and nothing of the answer kept but its status.
import type { SignedHeaders } from './signature.ts';

/** A receiver that has not answered within this fails the attempt; it is tried again on the schedule. */
export const SEND_TIMEOUT_MS = 10_000;

/**
 * What an attempt came to. `reason` is one of a few fixed words, safe to store and log: the answer's body, its headers
 * and an error's message (a runtime may quote the URL in it) are never read into it.
 */
export type SendResult =
  | { ok: true; status: number }
  | { ok: false; status: number | null; reason: 'status' | 'redirect' | 'timeout' | 'network' | 'url-forbidden' };

export interface SendInput {
  url: string;
  headers: SignedHeaders;
  body: string;
  timeoutMs?: number;
  /** Tests hand in a spy; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** Any 2xx is a success; a 3xx is a failure (its Location could name an internal address), as is anything else. */
export async function sendDelivery(input: SendInput): Promise<SendResult> {
  // Called through a closure: Workers refuses a fetch detached from the global object ("Illegal invocation").
  const send = input.fetch ?? ((request: RequestInfo | URL, init?: RequestInit) => fetch(request, init));
  const timeoutMs = input.timeoutMs ?? SEND_TIMEOUT_MS;
  let response: Response;
  try {
    response = await send(input.url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', 'user-agent': 'runstate-webhooks/1', ...input.headers },
      body: input.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return { ok: false, status: null, reason: isTimeout(error) ? 'timeout' : 'network' };
  }
  // The body is never read: dropping it releases the connection.
  await response.body?.cancel().catch(() => undefined);
  // A browser-like fetch reports a manual redirect as an opaque answer with status 0.
  if (response.status === 0 || (response.status >= 300 && response.status < 400)) {
    return { ok: false, status: response.status === 0 ? null : response.status, reason: 'redirect' };
  }
  if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
  return { ok: false, status: response.status, reason: 'status' };
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}
