/**
 * The entries of recent lookups whose identifiers a person's message may still pick (`namedBy`):
 * "what's in my inbox?" lists the messages, and "reply to the one from Sofia" names one of them a
 * turn later. Each lookup keeps, per entry, the text of the fields that say whose or which it is and
 * the identifiers it holds, so a later message is matched as the first one was. In memory only and
 * bounded: a lookup forgotten (a restart, an old lookup, a long listing) can no longer be named, so
 * its identifiers keep the trust the lookup gave them.
 */
export interface ListedEntry {
  /** The entry's naming fields as they stand, joined: entries whose fields are the same count as one. */
  readonly key: string;
  /** The names in those fields (`namingValues`), what a message is matched against. */
  readonly names: readonly string[];
  readonly values: readonly string[];
  /** Named by any word of a person's message, not only one written as a name (`SelectSpec.anyWord`). */
  readonly anyWord?: true;
}

export interface ListedLookup {
  readonly tool: string;
  readonly callId?: string;
  /** The entries of each select and record (a name must be unique among the entries of one). */
  readonly groups: readonly (readonly ListedEntry[])[];
}

/**
 * Lookups kept per session; entries per select (a longer listing is not kept: a name must be unique
 * among all its entries); entries per session, the oldest lookups going first. With the sessions
 * kept, a bound on memory whatever the results hold.
 */
export const MAX_LISTED_LOOKUPS = 4;
export const MAX_LISTED_ENTRIES = 40;
export const MAX_SESSION_ENTRIES = 120;

export class ListedEntries {
  private readonly sessions = new Map<string, ListedLookup[]>();
  private readonly max: number;

  constructor(maxSessions = 128) {
    this.max = maxSessions;
  }

  /** Notes a lookup's entries; a lookup noted again (the result's other hook) replaces the first. */
  note(sessionKey: string, found: ListedLookup): void {
    const groups = found.groups.filter(
      (entries) => entries.length <= MAX_LISTED_ENTRIES && entries.some((entry) => entry.names.length > 0 && entry.values.length > 0),
    );
    if (groups.length === 0) return;
    const lookup = { ...found, groups };
    const list = (this.sessions.get(sessionKey) ?? []).filter((l) => found.callId === undefined || l.callId !== found.callId);
    this.sessions.delete(sessionKey);
    if (this.sessions.size >= this.max) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    list.push(lookup);
    while (list.length > MAX_LISTED_LOOKUPS || (list.length > 1 && entriesOf(list) > MAX_SESSION_ENTRIES)) list.shift();
    if (entriesOf(list) <= MAX_SESSION_ENTRIES) this.sessions.set(sessionKey, list);
  }

  of(sessionKey: string): readonly ListedLookup[] {
    return this.sessions.get(sessionKey) ?? [];
  }
}

function entriesOf(list: readonly ListedLookup[]): number {
  let n = 0;
  for (const lookup of list) for (const group of lookup.groups) n += group.length;
  return n;
}
