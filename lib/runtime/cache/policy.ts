// The read-through cache's lifetimes in one place: each entry's TTL, and the generation that outlives them all.
/** An organisation's settings object (the partner-config shape): read on every settings screen, changed rarely. */
export const ORG_SETTINGS_TTL_SECONDS = 300;

/** A member count: informational, and not invalidated by an accepted invite, so its TTL is the staleness it may have. */
export const MEMBER_COUNT_TTL_SECONDS = 60;

/**
 * The organisation's cache generation lives this long after a bump: far longer than any entry (300 s) plus a request
 * in flight, so once it lapses no entry of the generation "0" written before the bump can still be alive.
 */
export const ORG_CACHE_GENERATION_TTL_SECONDS = 3_600;
