import type { ClawosConfig } from "./config-schema.ts";

/**
 * What a config change takes away from ClawOS's protection, in words: a weaker mode, a layer off,
 * an override that relaxes a tool, a shorter denial list, more trusted senders, a looser default,
 * an opened path or changed manifests. Pure: the runtime compares the config it ran with to the one
 * a hot reload brings, and audits any weakening with who could have written it.
 */

const MODE_RANK = { off: 0, audit: 1, enforce: 2 } as const;
const TRUST_RANK = { untrusted: 0, community: 1, verified: 2, owner: 3 } as const;

function missing(before: readonly string[], after: readonly string[]): string[] {
  const now = new Set(after);
  return before.filter((x) => !now.has(x));
}

export function weakenings(before: ClawosConfig, after: ClawosConfig): string[] {
  const out: string[] = [];
  if (before.layers.capabilities && !after.layers.capabilities) out.push("layers.capabilities turned off (no call is checked)");
  if (before.layers.tagging && !after.layers.tagging) out.push("layers.tagging turned off (every session stays at owner)");
  if (MODE_RANK[after.capabilities.mode] < MODE_RANK[before.capabilities.mode]) {
    out.push(`capabilities.mode ${before.capabilities.mode} → ${after.capabilities.mode}`);
  }
  for (const [tool, mode] of Object.entries(after.capabilities.overrides)) {
    const was = before.capabilities.overrides[tool] ?? before.capabilities.mode;
    if (MODE_RANK[mode] < MODE_RANK[was]) out.push(`capabilities.overrides.${tool}: ${was} → ${mode}`);
  }
  if (!before.capabilities.defaultAllow && after.capabilities.defaultAllow) out.push("capabilities.defaultAllow turned on");
  const denyGone = missing(before.capabilities.deny, after.capabilities.deny);
  if (denyGone.length) out.push(`capabilities.deny no longer denies ${denyGone.join(", ")}`);
  for (const [agent, { deny }] of Object.entries(before.capabilities.agents)) {
    const gone = missing(deny, after.capabilities.agents[agent]?.deny ?? []);
    if (gone.length) out.push(`capabilities.agents.${agent}.deny no longer denies ${gone.join(", ")}`);
  }
  const subGone = missing(before.subagent.denyCapabilities, after.subagent.denyCapabilities);
  if (subGone.length) out.push(`subagent.denyCapabilities no longer denies ${subGone.join(", ")}`);
  if (TRUST_RANK[after.subagent.maxTrust] > TRUST_RANK[before.subagent.maxTrust])
    out.push(`subagent.maxTrust ${before.subagent.maxTrust} → ${after.subagent.maxTrust}`);
  if (TRUST_RANK[after.unknownRequesterTrust] > TRUST_RANK[before.unknownRequesterTrust]) {
    out.push(`unknownRequesterTrust ${before.unknownRequesterTrust} → ${after.unknownRequesterTrust}`);
  }
  const senderKey = (s: { channel: string; senderId: string }) => `${s.channel}:${s.senderId}`;
  const newSenders = missing(after.trustedSenders.map(senderKey), before.trustedSenders.map(senderKey));
  if (newSenders.length) out.push(`trustedSenders added ${newSenders.join(", ")}`);
  for (const [name, cap] of Object.entries(after.capabilities.custom)) {
    // A capability nobody defined needs owner; defining it (or lowering its floor) lets more through.
    const was = before.capabilities.custom[name]?.minInputTrust ?? "owner";
    if (TRUST_RANK[cap.minInputTrust] < TRUST_RANK[was]) out.push(`capabilities.custom.${name}: needs ${was} → ${cap.minInputTrust}`);
  }
  if (JSON.stringify(before.manifests) !== JSON.stringify(after.manifests)) out.push("inline manifests changed (a manifest can lower what a tool needs)");
  const dirsAdded = missing(after.manifestDirs, before.manifestDirs);
  if (dirsAdded.length) out.push(`manifestDirs added ${dirsAdded.join(", ")}`);
  if (before.paths.workspaceOnly && !after.paths.workspaceOnly) out.push("paths.workspaceOnly turned off");
  const opened = after.paths.rules.filter((r) => r.zone === "open" && !before.paths.rules.some((b) => b.pattern === r.pattern && b.zone === "open"));
  if (opened.length) out.push(`paths.rules opens ${opened.map((r) => r.pattern).join(", ")}`);
  const writable = missing(after.paths.writable, before.paths.writable);
  if (writable.length) out.push(`paths.writable added ${writable.join(", ")}`);
  if (before.audit.file !== after.audit.file) out.push(`audit.file moved to ${after.audit.file ?? "the default"}`);
  if (before.state.dir !== after.state.dir) out.push(`state.dir moved to ${after.state.dir ?? "the default"} (sessions start clean there)`);
  return out;
}
