// A custom domain as its organisation's admin sees it: verified (it resolves), or pending with the TXT record that
// proves ownership (docs/design/tenants.md#domain-verification). The record's name and value are built here only.
import { bytesToHex, randomBytes } from '../../crypto/index.ts';

/** The label the TXT record lives under, so it never collides with the domain's own records. */
export const CHALLENGE_LABEL = '_runstate-challenge';
const CHALLENGE_PREFIX = 'runstate-verification=';
/** Hostnames are at most 253 characters; the challenge name adds the label and a dot. */
export const MAX_CLAIMABLE_DOMAIN_LENGTH = 253 - CHALLENGE_LABEL.length - 1;

export interface DomainView {
  domain: string;
  status: 'verified' | 'pending';
  /** When the TXT record proved it; null for a pending claim, and for a domain held before verification existed (migrations/0017). */
  verifiedAt: string | null;
  /** What to publish, for a pending claim; null once verified. */
  txtRecord: { name: string; value: string } | null;
}

/** 128 random bits, hex: unguessable before it is shown, and plain enough for any DNS console. */
export function newClaimToken(): string {
  return bytesToHex(randomBytes(16));
}

export function challengeName(domain: string): string {
  return `${CHALLENGE_LABEL}.${domain}`;
}

export function challengeValue(token: string): string {
  return `${CHALLENGE_PREFIX}${token}`;
}

export function verifiedView(domain: string, verifiedAt: string | Date | null): DomainView {
  return { domain, status: 'verified', verifiedAt: verifiedAt === null ? null : new Date(verifiedAt).toISOString(), txtRecord: null };
}

export function pendingView(domain: string, token: string): DomainView {
  return { domain, status: 'pending', verifiedAt: null, txtRecord: { name: challengeName(domain), value: challengeValue(token) } };
}

export function byDomain(a: DomainView, b: DomainView): number {
  return a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0;
}
