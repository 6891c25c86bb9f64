/**
 * A set of channel senders (`channel` + `senderId`), looked up without building a key string:
 * the gate asks on every call.
 */
export class SenderSet {
  private readonly byChannel = new Map<string, Set<string>>();

  constructor(senders: Iterable<{ readonly channel: string; readonly senderId: string }> = []) {
    for (const s of senders) this.add(s.channel, s.senderId);
  }

  has(channel: string | undefined, senderId: string | undefined): boolean {
    return channel !== undefined && senderId !== undefined && this.byChannel.get(channel)?.has(senderId) === true;
  }

  /** Whether any sender of this channel is in the set. */
  hasChannel(channel: string): boolean {
    return this.byChannel.has(channel);
  }

  add(channel: string, senderId: string): void {
    let ids = this.byChannel.get(channel);
    if (!ids) {
      ids = new Set();
      this.byChannel.set(channel, ids);
    }
    ids.add(senderId);
  }
}
