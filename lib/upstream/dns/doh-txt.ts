// TXT, A and AAAA lookups through a DNS-over-HTTPS resolver's JSON API (as Cloudflare and Google serve it): one GET with a
// deadline, never redirected, its body capped and zod-checked. The resolver URL is configuration; only the queried name
// (a hostname the caller checked) and the type reach its query string.
import * as z from 'zod';
import { discardBody, readCappedText } from '../syrve/body.ts';

/** A resolver that has not answered within this fails the check; the admin's request is never held longer. */
export const DOH_TIMEOUT_MS = 3_000;
/** A handful of TXT records fit in a few KiB; 64 KiB tells an answer from something that is not one. */
const MAX_ANSWER_BYTES = 64 * 1024;
const TXT_TYPE = 16;
/** RFC 1035 RCODEs: NOERROR, NXDOMAIN (the name does not exist: no records, a real answer). */
const NOERROR = 0;
const NXDOMAIN = 3;

// Resolvers add fields of their own (Question, AD, Comment…): only what is read here is checked.
const dohAnswerSchema = z.object({
  Status: z.number().int(),
  Answer: z.array(z.object({ type: z.number().int(), data: z.string().max(65_535) })).optional(),
});

export type TxtLookup =
  | { ok: true; records: string[] }
  /** Unreachable or late (`unavailable`), or it answered something other than a DNS answer (`bad-answer`: a status, a body, an RCODE). */
  | { ok: false; reason: 'unavailable' | 'bad-answer' };

export async function lookupTxt(
  resolverUrl: string,
  name: string,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<TxtLookup> {
  const answer = await lookupRecords(resolverUrl, name, 'TXT', options);
  return answer.ok ? { ok: true, records: answer.records.map(txtText) } : answer;
}

/** Record types this client asks for, by name and RFC 1035 number. */
const RECORD_TYPES = { TXT: TXT_TYPE, A: 1, AAAA: 28 } as const;

/** The data of every record of `type` in the answer (raw as the resolver wrote it); none for NXDOMAIN. */
export async function lookupRecords(
  resolverUrl: string,
  name: string,
  type: keyof typeof RECORD_TYPES,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<TxtLookup> {
  // Called through a closure: Workers refuses a fetch detached from the global object.
  const send = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const url = new URL(resolverUrl);
  url.searchParams.set('name', name);
  url.searchParams.set('type', type);
  let response: Response;
  try {
    response = await send(url.href, {
      method: 'GET',
      redirect: 'manual',
      headers: { accept: 'application/dns-json' },
      // The same signal ends the body read below.
      signal: AbortSignal.timeout(options.timeoutMs ?? DOH_TIMEOUT_MS),
    });
  } catch {
    return { ok: false, reason: 'unavailable' };
  }
  if (response.status !== 200) {
    await discardBody(response);
    return { ok: false, reason: response.status >= 500 ? 'unavailable' : 'bad-answer' };
  }
  let text: string | undefined;
  try {
    text = await readCappedText(response, MAX_ANSWER_BYTES);
  } catch {
    return { ok: false, reason: 'unavailable' };
  }
  let parsed: z.infer<typeof dohAnswerSchema>;
  try {
    const checked = dohAnswerSchema.safeParse(JSON.parse(text ?? ''));
    if (!checked.success) return { ok: false, reason: 'bad-answer' };
    parsed = checked.data;
  } catch {
    return { ok: false, reason: 'bad-answer' };
  }
  if (parsed.Status === NXDOMAIN) return { ok: true, records: [] };
  // SERVFAIL and the rest: the resolver could not say, which is not "there is no record".
  if (parsed.Status !== NOERROR) return { ok: false, reason: 'unavailable' };
  // CNAMEs the resolver followed come along; a record at the end of the chain counts (the domain's owner set the chain).
  return { ok: true, records: (parsed.Answer ?? []).filter((record) => record.type === RECORD_TYPES[type]).map((record) => record.data) };
}

/**
 * A TXT record's text: Cloudflare gives the presentation form (one or more quoted strings, `"a" "b"`, with `\"`, `\\`
 * and `\DDD` escapes), Google the bare text. Quoted strings are joined, as RFC 7208 does for a long record.
 */
export function txtText(data: string): string {
  const s = data.trim();
  if (!s.startsWith('"')) return s;
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s[i] === ' ') {
      i += 1;
      continue;
    }
    if (s[i] !== '"') return s;
    i += 1;
    while (i < s.length && s[i] !== '"') {
      if (s[i] === '\\' && i + 1 < s.length) {
        const digits = s.slice(i + 1, i + 4);
        if (/^\d{3}$/.test(digits)) {
          out += String.fromCharCode(Number(digits));
          i += 4;
        } else {
          out += s[i + 1];
          i += 2;
        }
        continue;
      }
      out += s[i];
      i += 1;
    }
    i += 1;
  }
  return out;
}
