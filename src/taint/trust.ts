/**
 * L1 trust levels: the one ordered definition the whole plugin uses.
 * Higher rank means more trusted. Everything else compares through `trustRank`.
 */
export const TRUST_LEVELS = ["untrusted", "community", "verified", "owner"] as const;

export type TrustLevel = (typeof TRUST_LEVELS)[number];

const RANK: Readonly<Record<TrustLevel, number>> = Object.freeze({
  untrusted: 0,
  community: 1,
  verified: 2,
  owner: 3,
});

export function isTrustLevel(value: unknown): value is TrustLevel {
  return typeof value === "string" && Object.hasOwn(RANK, value);
}

export function trustRank(level: TrustLevel): number {
  return RANK[level];
}

/** The lower of two levels: a session's trust is the minimum of everything that entered it. */
export function minTrust(a: TrustLevel, b: TrustLevel): TrustLevel {
  return RANK[a] <= RANK[b] ? a : b;
}

/** True when `actual` satisfies a requirement of `required`. */
export function meetsTrust(actual: TrustLevel, required: TrustLevel): boolean {
  return RANK[actual] >= RANK[required];
}

/** Human order for messages and docs: "owner > verified > community > untrusted". */
export const TRUST_ORDER_TEXT = [...TRUST_LEVELS].reverse().join(" > ");
