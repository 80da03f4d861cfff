// What the load callers share: the signed-in sessions (each refresh chain in one caller's hands at a time), the invites
// held for accepting or cancelling, and round-robin pickers of organisations, members and client addresses.
import type { LoadMember, LoadOrganization } from './tenants.ts';
import type { HeldInvite, SignedIn } from './state.ts';

/** Distinct client addresses the load cycles through: enough that no per-address limit is reached, few enough to be a real population's. */
const ADDRESSES = 4_096;

export interface LoadPools {
  organization(): LoadOrganization;
  /** The next member, round robin over all of them: each account signs in rarely, as a real one does. */
  member(): LoadMember;
  address(): string;
  /** A session with an active context, for the reads (shared: reads do not change it). */
  readingSession(): SignedIn;
  /** A session whose refresh token no other caller holds; give it back with its successor. */
  takeRefreshable(): SignedIn | undefined;
  giveRefreshable(session: SignedIn): void;
  takeInvite(): HeldInvite | undefined;
  giveInvite(invite: HeldInvite): void;
}

/**
 * `start` offsets the round robins, so app instances sharing the population (bench/load/instances.ts) begin at different
 * organisations and members; the sessions and invites handed in are this instance's alone.
 */
export function createPools(
  population: { organizations: LoadOrganization[]; members: LoadMember[]; sessions: SignedIn[]; invites: HeldInvite[] },
  start: number,
): LoadPools {
  const { organizations, members, sessions, invites } = population;
  const roundRobin = <T>(items: readonly T[]) => {
    let next = start;
    return () => items[next++ % items.length] as T;
  };
  const refreshable = [...sessions];
  const held = [...invites];
  const organization = roundRobin(organizations);
  const member = roundRobin(members);
  const readingSession = roundRobin(sessions);
  let addresses = start;
  return {
    organization,
    member,
    address() {
      const n = addresses++ % ADDRESSES;
      return `10.100.${n >> 8}.${n & 255}`;
    },
    readingSession,
    takeRefreshable: () => refreshable.shift(),
    giveRefreshable: (session) => void refreshable.push(session),
    // Oldest first, so an invite waits a while between its create and its accept, as a real one does.
    takeInvite: () => held.shift(),
    giveInvite: (invite) => void held.push(invite),
  };
}
