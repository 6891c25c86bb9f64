import type { FileLabel } from "../taint/file-labels.ts";
import type { TrustLevel } from "../taint/trust.ts";

/** `/clawos files`: the files labelled below owner, newest first, and how the owner vouches for one. */
export function formatFileLabels(report: {
  newest: readonly { path: string; label: FileLabel }[];
  counts: Record<TrustLevel, number>;
  problem?: string;
}): string {
  const below = report.counts.untrusted + report.counts.community + report.counts.verified;
  const lines = [`ClawOS file labels: ${below} below owner, ${report.counts.owner} owner.`];
  if (report.problem) lines.push(`Warning: file labels cannot be relied on: ${report.problem}; no path counts as trusted by its location until this is fixed.`);
  for (const { path, label } of report.newest) {
    const what = label.tree ? " (and everything under it)" : "";
    const runs = label.code !== undefined ? `; runs as ${label.code} (code its writer chose)` : "";
    lines.push(`- ${label.level} ${path}${what}${runs}: written ${new Date(label.at).toISOString()}${label.by ? ` by ${label.by}` : ""}`);
  }
  if (below > report.newest.length) lines.push(`... ${below - report.newest.length} more.`);
  if (below > 0) {
    lines.push(
      "Reading one of these lowers the session that reads it, and a build or test whose tree holds one asks first. After reviewing a file (or a directory), the owner vouches for it with /clawos files trust <path>: it then counts as the owner's until a less trusted session writes it again.",
    );
  }
  return lines.join("\n");
}
