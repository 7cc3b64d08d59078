// Small statistics and number formatting for the report.
export function median(xs) {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

export const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "—");
export const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : "—");
export const kib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KiB` : "—");
export const mb = (bytes) => (Number.isFinite(bytes) ? (bytes / 1e6).toFixed(1) : "—");
