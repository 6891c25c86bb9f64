import type { TrustLevel } from "./taint/trust.ts";

/**
 * The plain-data shapes the engine takes from the host adapter: a tool call about to run, and a
 * finished call's result. Nothing here knows OpenClaw's objects.
 */

export interface Requester {
  readonly channel?: string;
  readonly senderId?: string;
  readonly senderIsOwner?: boolean;
}

export interface ToolCall {
  readonly toolName: string;
  readonly params: unknown;
  readonly toolKind?: string;
  readonly toolCallId?: string;
  readonly sessionKey?: string;
  readonly agentId?: string;
  readonly isSubagent: boolean;
  /** Undefined when the host gave no requester (unproven), not when it gave a non-owner. */
  readonly requester?: Requester;
  /** Paths the host itself derived from the call (apply_patch's targets), already resolved. */
  readonly derivedPaths?: readonly string[];
  /** False when the gate that decides this call cannot ask the owner (a plain before_tool_call hook). */
  readonly canAsk?: boolean;
}

export interface ToolResult {
  readonly toolName?: string;
  readonly params?: unknown;
  readonly toolKind?: string;
  readonly toolCallId?: string;
  readonly sessionKey?: string;
  readonly isSubagent: boolean;
  /**
   * The host made this result up itself (a synthetic result for an interrupted call): nothing the
   * tool returned entered. A tool's own `details` can never say this: tools control their details.
   */
  readonly synthetic?: boolean;
  /** A trust level stated out of band by the caller (trace replay), never read from content. */
  readonly resultTrust?: TrustLevel;
  /** The host reported the call as failed: what it returned is an error's text, not the tool's output. */
  readonly failed?: boolean;
  /**
   * What the tool returned (the host's result or stored message content), when the hook carries it.
   * Read for the values it names (provenance), never for trust.
   */
  readonly content?: unknown;
}

/** A channel message that entered a session (message_received). */
export interface ChannelMessage {
  readonly sessionKey?: string;
  readonly channel?: string;
  readonly senderId?: string;
  /** The message's text, read for the values it names. */
  readonly text?: string;
}

/**
 * A model run about to start in a session (before_agent_run, before_prompt_build): what the host
 * says put its input there. `provenance` is the host's own record (never read from text).
 */
export interface TurnInput {
  readonly sessionKey?: string;
  readonly isSubagent: boolean;
  readonly provenance?: {
    /** external_user, inter_session or internal_system. */
    readonly kind: string;
    /** The session whose message this is (inter_session), as the host resolved it. */
    readonly sourceSessionKey?: string;
    readonly sourceIsSubagent?: boolean;
    readonly sourceTool?: string;
    readonly sourceRole?: string;
  };
  /** The sender, when the host says who it is (undefined: unproven). */
  readonly requester?: Requester;
  /** The message that starts the run, read for the values it names (at the sender's trust). */
  readonly prompt?: string;
  /**
   * The context OpenClaw adds to the run beside the message (its runtime-context message: chat
   * history since the last reply, a quoted message, runtime facts), when it carries the host's
   * context marker.
   */
  readonly context?: string;
  /** The message itself carries that context, inlined (a turn with no words of its own). */
  readonly contextInPrompt?: boolean;
  /**
   * That context holds chat history (messages posted since the agent last replied): other people's
   * words, in whatever session the host runs the turn (groups may share the main session).
   */
  readonly contextHasHistory?: boolean;
  /** What started the run, as the host says (`user`, `cron`, `heartbeat`, ...): who could answer an approval. */
  readonly trigger?: string;
}
