// The list cursor: an opaque base64url of the last listed (expiry score, member) pair, checked on the way in so hostile input is a 400.
import { base64urlDecode, base64urlEncode } from '../../crypto/index.ts';

export interface ListPosition {
  /** Expiry in unix seconds: the index score. */
  score: number;
  /** Invite id in UUID "N" form: the index member. */
  member: string;
}

// A score of at most 11 digits (unix seconds far past any TTL) and a 32-hex member: nothing else reaches the script.
const POSITION = /^([1-9][0-9]{0,10})\.([0-9a-f]{32})$/;

export function encodeCursor(position: ListPosition): string {
  return base64urlEncode(new TextEncoder().encode(`${position.score}.${position.member}`));
}

/** The position a cursor names, or undefined for anything no list handed out. */
export function decodeCursor(cursor: string): ListPosition | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(base64urlDecode(cursor));
  } catch {
    return undefined;
  }
  const match = POSITION.exec(text);
  if (match === null) return undefined;
  return { score: Number(match[1]), member: match[2] as string };
}
