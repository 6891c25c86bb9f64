import type { Requester } from "../calls.ts";
import type { TrustLevel } from "./trust.ts";

/**
 * Who a session's turns came from, and why each requester got its trust level (L1 data; the
 * report puts it into words). A requester's level is decided only from what the host says about
 * the sender (OpenClaw's `requester.senderIsOwner`) and the operator's `trustedSenders`, never from
 * text:
 *
 * - `host-owner`: the host resolved the sender as the owner. OpenClaw does so for its operator's
 *   own clients (`openclaw agent` from the local CLI, and gateway clients such as the Control UI or
 *   a `chat.send` caller holding `operator.admin`) and for a channel's configured owner.
 * - `trusted-sender`: the host did not mark the sender as the owner, and the operator lists it in
 *   `trustedSenders` (verified).
 * - `not-owner`: the host named a sender (or only a channel) and did not mark it as the owner
 *   (community). A gateway client without `operator.admin` is one.
 * - `unidentified`: the host gave no requester at all: `unknownRequesterTrust`.
 */

export type RequesterBasis = "host-owner" | "trusted-sender" | "not-owner" | "unidentified";

/** One requester of a session's turns and its level. Immutable: sessions with the same requester share one. */
export interface RequesterTrust {
  readonly level: TrustLevel;
  readonly basis: RequesterBasis;
  readonly channel?: string;
  readonly senderId?: string;
}

/** How many distinct requesters a session remembers for its report (the most recent ones). */
export const MAX_REQUESTERS = 4;

/** How many distinct requesters are shared between sessions; beyond it each session gets its own. */
const MAX_SHARED = 4096;

/**
 * The gateway's own channel: its sender ids are the names gateway clients give themselves (`cli`,
 * `gateway-client`), not identities, and owner status comes from each connection's scopes. An
 * owner seen there says nothing about another client of the same name.
 */
export const GATEWAY_CHANNEL = "webchat";

function matches(r: RequesterTrust, basis: RequesterBasis, level: TrustLevel, channel: string | undefined, senderId: string | undefined): boolean {
  return r.basis === basis && r.level === level && r.channel === channel && r.senderId === senderId;
}

/**
 * Notes the requesters of sessions' turns, most recent last. A session whose turns all came from
 * one requester (the usual case) holds a list shared with every such session, so 100k sessions
 * cost no memory for it.
 */
export class RequesterLog {
  private readonly shared = new Map<string, readonly RequesterTrust[]>();

  /**
   * A session's list after a turn of `requester`. On every call it is usually the latest requester
   * again: then the list is returned as it is and nothing is allocated.
   */
  note(current: readonly RequesterTrust[] | undefined, requester: Requester | undefined, basis: RequesterBasis, level: TrustLevel): readonly RequesterTrust[] {
    const channel = requester?.channel;
    const senderId = requester?.senderId;
    const last = current?.[current.length - 1];
    if (current && last && matches(last, basis, level, channel, senderId)) return current;
    const alone = this.single(basis, level, channel, senderId);
    if (!current || current.length === 0) return alone;
    const next = current.filter((r) => !matches(r, basis, level, channel, senderId));
    next.push(alone[0]);
    return next.length > MAX_REQUESTERS ? next.slice(-MAX_REQUESTERS) : next;
  }

  /** The shared one-requester list (frozen). */
  private single(basis: RequesterBasis, level: TrustLevel, channel: string | undefined, senderId: string | undefined): readonly RequesterTrust[] {
    const key = `${basis}\u0000${level}\u0000${channel ?? ""}\u0000${senderId ?? ""}`;
    const known = this.shared.get(key);
    if (known) return known;
    const entry: RequesterTrust = Object.freeze({ level, basis, ...(channel ? { channel } : {}), ...(senderId ? { senderId } : {}) });
    const list = Object.freeze([entry]);
    if (this.shared.size < MAX_SHARED) this.shared.set(key, list);
    return list;
  }
}
