export interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** Percentiles of a sample (any unit; nearest-rank). */
export function summarize(values: Float64Array | number[]): Summary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  if (n === 0) return { n, p50: NaN, p99: NaN, max: NaN, mean: NaN };
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))];
  let sum = 0;
  for (const v of sorted) sum += v;
  return { n, p50: at(0.5), p99: at(0.99), max: sorted[n - 1], mean: sum / n };
}

export function fmt(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return "n/a";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(digits);
}

/** A plain Markdown table (prints readably in a terminal, pastes into docs). */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const sep = `|${widths.map((w, i) => (i === 0 ? `${"-".repeat(w + 1)}-` : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(cells[0]), sep, ...cells.slice(1).map(line)].join("\n");
}
