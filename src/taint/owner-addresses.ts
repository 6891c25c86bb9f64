import { SenderSet } from "./sender-set.ts";

/**
 * The owner's own addresses: where a message reaches nobody but the owner. Two sources, both the
 * host's word, never text: `commands.ownerAllowFrom` in OpenClaw's config (`telegram:123456789`,
 * where the host sends the operator's own alerts), and channel senders the host resolved as the
 * owner (`senderIsOwner`) in this process. A recipient that is one of them is endorsed at owner
 * whatever the session read: a page can make the agent message the owner, and only the owner reads it.
 */

export interface OwnerAddress {
  readonly channel: string;
  readonly senderId: string;
}

/** How a recipient was found to be the owner's own address. */
export type OwnAddressBasis = "configured" | "proven";

const CHANNEL_NAME = /^[a-z][a-z0-9_-]*$/;
/** The prefix several channels put before a person's id to address a direct message (`user:<id>`). */
const USER_PREFIX = /^user:/i;

/**
 * The `commands.ownerAllowFrom` entries that name one sender on one channel (`telegram:123456789`).
 * A wildcard names nobody, and `<channel>:user:<id>` names no owner to the host either. An entry
 * without a channel is the owner's id on every channel to the host; the same digits can be someone
 * else on another channel, so it endorses no recipient here (such a sender still becomes a proven
 * owner when the host resolves them).
 */
export function ownerAddressesOf(entries: unknown): OwnerAddress[] {
  if (!Array.isArray(entries)) return [];
  const out: OwnerAddress[] = [];
  for (const entry of entries) {
    if (typeof entry !== "string" && typeof entry !== "number") continue;
    const text = String(entry).trim();
    const colon = text.indexOf(":");
    if (colon <= 0) continue;
    const channel = text.slice(0, colon).toLowerCase();
    const senderId = text.slice(colon + 1).trim();
    // The host reads `<channel>:user:<id>` as naming no owner on a chat channel: so does ClawOS.
    if (!CHANNEL_NAME.test(channel) || !senderId || senderId.includes("*") || USER_PREFIX.test(senderId)) continue;
    out.push({ channel, senderId });
  }
  return out;
}

export class OwnerAddresses {
  private configured: SenderSet;
  /** Channel senders the host has resolved as the owner in this process. */
  private readonly proven = new SenderSet();

  constructor(configured: readonly OwnerAddress[] = []) {
    this.configured = new SenderSet(configured);
  }

  /** The configured addresses after a reload; the senders proven so far stay. */
  configure(configured: readonly OwnerAddress[]): void {
    this.configured = new SenderSet(configured);
  }

  /** A channel sender the host resolved as the owner. */
  prove(channel: string, senderId: string): void {
    this.proven.add(channel.toLowerCase(), senderId);
  }

  isProven(channel: string | undefined, senderId: string | undefined): boolean {
    return channel !== undefined && this.proven.has(channel.toLowerCase(), senderId);
  }

  /**
   * Whether a recipient is the owner's own address, and on what basis. The value names its channel
   * (`telegram:123456789`, `telegram:user:123`) or is a bare id (`123456789`, `user:123`) on
   * `channel`, the channel the call sends on (its `channel` argument, else the requester's). An id
   * is matched on its own channel only: the same digits elsewhere can be someone else.
   */
  basisOf(value: string, channel: string | undefined): OwnAddressBasis | undefined {
    const text = value.trim();
    const colon = text.indexOf(":");
    if (colon > 0) {
      const prefix = text.slice(0, colon).toLowerCase();
      if (this.knows(prefix)) return this.lookup(prefix, text.slice(colon + 1));
    }
    return channel ? this.lookup(channel.trim().toLowerCase(), text) : undefined;
  }

  private knows(channel: string): boolean {
    return this.configured.hasChannel(channel) || this.proven.hasChannel(channel);
  }

  private lookup(channel: string, id: string): OwnAddressBasis | undefined {
    const senderId = id.replace(USER_PREFIX, "").trim();
    if (!senderId) return undefined;
    if (this.configured.has(channel, senderId)) return "configured";
    if (this.proven.has(channel, senderId)) return "proven";
    return undefined;
  }
}
