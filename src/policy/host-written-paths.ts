import { globMatcher, type LabelledGlob } from "./autoloaded-paths.ts";

/**
 * Files in the agent's workspace that OpenClaw itself writes from conversations, with no tool call
 * ClawOS could see: the memory notes (the `session-memory` hook saves an ended session's excerpts
 * there; dreaming, on by default, adds blocks built from session transcripts to the daily notes),
 * the long-term memory and dream diary dreaming composes, and the attachments and raw inputs a
 * message brought, which OpenClaw stages in the workspace (`media/inbound/`). Whoever spoke in any
 * session may have put text there, so a read counts as `untrusted` however the file is read
 * (`read`, `cat`, `grep`), as OpenClaw's own memory tools' output does, and whatever ClawOS saw
 * written to it before.
 *
 * Plain data: globs over the path below the agent's workspace.
 */
export const HOST_WRITTEN_PATHS: readonly LabelledGlob[] = [
  { pattern: "memory/**", label: "the agent's memory notes, which OpenClaw also fills from past conversations" },
  { pattern: "{MEMORY,memory,DREAMS,dreams}.md", label: "the agent's long-term memory and dream diary, which OpenClaw's dreaming writes" },
  // OpenClaw stages what a message brought (attachments, raw inputs) here, whoever sent it.
  { pattern: "media/inbound/**", label: "attachments and inputs received on channels, which OpenClaw saves in the workspace" },
];

/** The built-in list compiled once: what a path below the workspace is, if OpenClaw writes it from conversations. */
export function hostWrittenMatcher(caseInsensitive: boolean): (relative: string) => string | undefined {
  return globMatcher(HOST_WRITTEN_PATHS, caseInsensitive);
}
