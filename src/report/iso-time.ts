/**
 * Speed helper: `new Date(at).toISOString()`, with the part up to the second remembered. Block
 * reasons and audit lines format times that fall in the same second over and over.
 */
let isoSecond = Number.NaN;
let isoPrefix = "";

export function isoTime(at: number): string {
  if (!Number.isInteger(at) || at < 0 || at > 253402300799999) return new Date(at).toISOString();
  const second = Math.floor(at / 1000);
  if (second !== isoSecond) {
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 19);
    isoSecond = second;
  }
  return `${isoPrefix}.${String(at - second * 1000).padStart(3, "0")}Z`;
}
