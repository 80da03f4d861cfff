// The realistic traffic mix (weights out of 100): the cost table's weighted row and what each load caller does next.

/**
 * One kind of request: its weight in the mix, and the sequential bench (`bench/operations/`) whose measured commands
 * price it in the cost table. A restaurant group's back office through a working day: signed-in staff mostly read
 * their context and the Syrve data (the product's purpose); clients resolve the tenant when they start and refresh
 * their token every quarter hour; admins list invites, members and sessions; sign-ins and invites are rarer.
 */
export interface MixEntry {
  name: MixName;
  weight: number;
  bench: string;
}

export type MixName =
  | 'auth.context.get'
  | 'syrve.stores'
  | 'resolve'
  | 'auth.refresh'
  | 'invites.list'
  | 'members.list'
  | 'sessions.list'
  | 'invites.create'
  | 'auth.login'
  | 'invites.accept'
  | 'invites.cancel';

export const MIX: readonly MixEntry[] = [
  { name: 'auth.context.get', weight: 20, bench: 'auth.context.get' },
  { name: 'syrve.stores', weight: 20, bench: 'syrve.acquire.hit' },
  { name: 'resolve', weight: 12, bench: 'resolve.hit' },
  { name: 'auth.refresh', weight: 10, bench: 'auth.refresh' },
  { name: 'invites.list', weight: 8, bench: 'invites.list' },
  { name: 'members.list', weight: 8, bench: 'members.list' },
  { name: 'sessions.list', weight: 8, bench: 'sessions.list' },
  { name: 'invites.create', weight: 5, bench: 'invites.create' },
  { name: 'auth.login', weight: 4, bench: 'auth.login' },
  { name: 'invites.accept', weight: 3, bench: 'invites.accept' },
  { name: 'invites.cancel', weight: 2, bench: 'invites.cancel' },
];

/** `weight name, …` as the reports print it. */
export const MIX_WEIGHTS_LINE = MIX.map((entry) => `${entry.name} ${entry.weight}`).join(', ');
