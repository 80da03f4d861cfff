// The User-Agent a session records (shown to its owner and their admins in the session list): text only, bounded.

/** The longest User-Agent kept; `sessions.user_agent` holds at most this many characters (migrations/0012). */
export const USER_AGENT_MAX_CHARS = 256;

// Control characters (C0, DEL, C1), invisible format characters (bidirectional overrides among them, which could make
// one client's entry read like another's) and line or paragraph separators: nothing a person needs to see.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** The header as stored: unprintable characters removed, trimmed, cut to 256 characters; null when nothing is left. */
export function sessionUserAgent(header: string | undefined): string | null {
  if (header === undefined) return null;
  const cleaned = header.replace(UNPRINTABLE, '').trim();
  // By code points, so a cut never splits a surrogate pair.
  const kept = Array.from(cleaned).slice(0, USER_AGENT_MAX_CHARS).join('').trimEnd();
  return kept === '' ? null : kept;
}
