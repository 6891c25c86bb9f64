import { PATH_EFFECT_RANK, pathEffectOf } from "../policy/capabilities.ts";
import type { Manifest } from "../policy/manifest-schema.ts";
import type { ManifestEntry } from "../policy/manifests.ts";
import { trustRank } from "../taint/trust.ts";

/**
 * What an operator's manifest takes away from the built-in one it replaces (an operator manifest of
 * the same tool or alias wins over the built-in): a lower input trust floor, results that count as
 * more trusted (command output marked `owner`), capabilities, arguments or modes it no longer
 * declares, provenance decisions turned on. Pure: manifests in, words out.
 */

export interface ManifestWeakening {
  readonly tool: string;
  /** Where the operator's manifest comes from (file, or `config manifests[i]`). */
  readonly source: string;
  readonly builtinSource: string;
  readonly changes: readonly string[];
  /** The results of the tool now count as more trusted than the built-in says: injected text in them is no longer caught. */
  readonly raisesOutputTrust: boolean;
}

function names(m: Manifest): string[] {
  return [m.tool, ...(m.aliases ?? [])];
}

function missing(before: readonly string[], after: readonly string[]): string[] {
  const now = new Set(after);
  return before.filter((x) => !now.has(x));
}

/** The weakenings of one operator manifest against the built-in it replaces. */
export function manifestChanges(builtin: Manifest, operator: Manifest): { changes: string[]; raisesOutputTrust: boolean } {
  const changes: string[] = [];
  if (trustRank(operator.minInputTrust) < trustRank(builtin.minInputTrust)) {
    changes.push(`minInputTrust ${builtin.minInputTrust} → ${operator.minInputTrust} (calls are allowed at lower input trust)`);
  }
  const raisesOutputTrust =
    trustRank(operator.outputTrust) > trustRank(builtin.outputTrust) ||
    (builtin.provenance?.output !== undefined &&
      builtin.provenance.output !== "declared" &&
      (operator.provenance?.output ?? "declared") === "declared" &&
      trustRank(operator.outputTrust) > trustRank("untrusted"));
  const builtinOutput = `${builtin.outputTrust}${builtin.provenance?.output && builtin.provenance.output !== "declared" ? ` (by ${builtin.provenance.output})` : ""}`;
  // A result counted at the trust its call was made at instead of the built-in's: whatever outside
  // text it carries enters at the session's own trust.
  const echoes = operator.provenance?.output === "call" && builtin.provenance?.output !== "call";
  if (echoes) {
    changes.push(
      `provenance.output "call": its results count at the trust the call was made at, not ${builtinOutput} (instructions injected into them are not caught)`,
    );
  }
  // Quoted files' trust instead of the built-in's, or with fewer of the built-in's tests on the entries.
  const cited = operator.provenance?.output === "cited";
  const tests = (m: Manifest) => (m.provenance?.cites?.where?.length ?? 0) + (m.provenance?.cites?.unless?.length ?? 0);
  if (cited && (builtin.provenance?.output !== "cited" || tests(operator) < tests(builtin))) {
    changes.push(
      `provenance.output "cited"${builtin.provenance?.output === "cited" ? " with fewer tests on the entries" : ""}: its results count at the trust of the files they quote, not ${builtinOutput}`,
    );
  }
  if (raisesOutputTrust) {
    changes.push(
      `outputTrust ${builtinOutput} → ${operator.outputTrust} (its results no longer lower a session; instructions injected into them are not caught)`,
    );
  }
  const caps = missing(builtin.capabilities, operator.capabilities);
  if (caps.length) changes.push(`no longer declares ${caps.join(", ")}`);
  const args = missing(
    (builtin.arguments ?? []).map((a) => a.at),
    (operator.arguments ?? []).map((a) => a.at),
  );
  if (args.length) changes.push(`no longer declares the arguments ${args.join(", ")} (what they touch is not checked)`);
  const adding = (modes: Manifest["modes"]) => (modes ?? []).filter((m) => !m.readOnly).length;
  const modes = adding(builtin.modes) - adding(operator.modes);
  if (modes > 0) changes.push(`declares ${modes} fewer mode${modes === 1 ? "" : "s"} (more powerful uses of the tool are not told apart)`);
  const readName = (m: NonNullable<Manifest["modes"]>[number]) => `${m.when.argument ?? ""}=${(m.when.equals ?? []).join("|")}`;
  // A read-only mode is the built-in one only with the same actions, a requester at least as trusted and no more `reads`.
  const builtinReads = (builtin.modes ?? []).filter((m) => m.readOnly);
  const sameRead = (b: NonNullable<Manifest["modes"]>[number], o: NonNullable<Manifest["modes"]>[number]) =>
    readName(b) === readName(o) &&
    trustRank(o.requester ?? "untrusted") >= trustRank(b.requester ?? "untrusted") &&
    (o.reads ?? []).every((at) => (b.reads ?? []).includes(at));
  const newReads = (operator.modes ?? []).filter((m) => m.readOnly && !builtinReads.some((b) => sameRead(b, m)));
  if (newReads.length) {
    changes.push(`decides ${newReads.map((m) => m.name).join(", ")} as read-only (such calls skip the tool's own trust requirement)`);
  }
  const builtinDecides = (builtin.modes ?? []).filter((m) => m.decisions === true).map(readName);
  const newDecides = (operator.modes ?? []).filter((m) => m.decisions === true && !builtinDecides.includes(readName(m)));
  if (newDecides.length) {
    changes.push(`decides ${newDecides.map((m) => m.name).join(", ")} by where its arguments came from (such calls may run below the tool's trust)`);
  }
  if (builtin.provenance?.decisions === false && operator.provenance?.decisions !== false && (operator.arguments ?? []).length > 0) {
    changes.push("provenance decisions turned on (calls below the trust floor are allowed when their arguments came from trusted input)");
  }
  const builtinPaths = pathEffectOf(builtin.capabilities, builtin.pathChanges, builtin.capabilities);
  const operatorPaths = pathEffectOf(operator.capabilities, operator.pathChanges, operator.capabilities);
  if (PATH_EFFECT_RANK[operatorPaths] < PATH_EFFECT_RANK[builtinPaths]) {
    changes.push(`pathChanges ${builtinPaths} → ${operatorPaths} (real paths stay kept across its calls: a symlink it moves is followed up to a second late)`);
  }
  return { changes, raisesOutputTrust: raisesOutputTrust || echoes };
}

/**
 * Every operator manifest that replaces a built-in one and weakens it. `builtins` are the manifests
 * shipped with ClawOS; `operator` the operator's (manifestDirs and inline), in load order.
 */
export function manifestWeakenings(builtins: readonly ManifestEntry[], operator: readonly ManifestEntry[]): ManifestWeakening[] {
  const byName = new Map<string, ManifestEntry>();
  for (const entry of builtins) for (const name of names(entry.manifest)) byName.set(name, entry);
  const out: ManifestWeakening[] = [];
  for (const entry of operator) {
    const builtin = names(entry.manifest)
      .map((name) => byName.get(name))
      .find((b) => b !== undefined);
    if (!builtin) continue;
    const { changes, raisesOutputTrust } = manifestChanges(builtin.manifest, entry.manifest);
    if (changes.length) out.push({ tool: entry.manifest.tool, source: entry.source, builtinSource: builtin.source, changes, raisesOutputTrust });
  }
  return out;
}
