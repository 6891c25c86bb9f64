/**
 * The label of a tool result as a taint source: "the result of web_fetch". One shared string per
 * tool (a speed helper: a store full of results keeps one copy, not one per source); the session
 * store's compact form leaves this label out and makes it again from the tool's name.
 */
const resultLabels = new Map<string, string>();

export function resultLabel(tool: string): string {
  let label = resultLabels.get(tool);
  if (label === undefined) {
    if (resultLabels.size >= 4096) resultLabels.clear();
    label = `the result of ${tool}`;
    resultLabels.set(tool, label);
  }
  return label;
}

/** True when a source's label is the usual one of its tool's result (and can be left out when stored). */
export function isResultLabel(label: string, tool: string | undefined): boolean {
  return tool !== undefined && label.length === tool.length + 14 && label === resultLabel(tool);
}
