// A load call that did not get the answer a working system gives, named by its kind so the report can count each kind.

export class LoadFailure extends Error {
  constructor(readonly kind: string) {
    super(kind);
  }
}

/**
 * The caller's pool has nothing for this call (no invite held, no session free to refresh): in the mix a failure like
 * any other; when one operation runs alone, the caller stops instead, so its CPU per call counts real calls only.
 */
export class PoolEmpty extends LoadFailure {}

/**
 * Reads the answer (as a client would) and throws a LoadFailure unless its status is `status`. The kind is the status
 * and the API's error code (`503 REVOCATION_UNAVAILABLE`), never the message, so kinds add up across calls.
 */
export async function expectAnswer(response: Response, status: number): Promise<string> {
  const text = await response.text();
  if (response.status === status) return text;
  let code = '';
  try {
    code = ((JSON.parse(text) as { error?: { code?: string } }).error?.code ?? '').slice(0, 64);
  } catch {
    code = 'not JSON';
  }
  throw new LoadFailure(`HTTP ${response.status} ${code}`.trim());
}

/** The kind of anything a call threw: a LoadFailure's own, else the error's class (an exception is a bug to look at). */
export function failureKind(error: unknown): string {
  if (error instanceof LoadFailure) return error.kind;
  return `threw ${error instanceof Error ? error.name : typeof error}`;
}
