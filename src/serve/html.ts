/** Text as HTML: every value a page shows goes through it. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** A percentage as the status page shows it: one decimal under 10 %; `–` for none. */
export const percent = (ratio: number | null): string => (ratio === null ? '–' : `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)} %`);

/** A count with thousands separators. */
export const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
