/** Whether an Accept-Encoding header allows gzip: named (or `*`), and not with q=0. */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  // The common case, as Prometheus and browsers send it.
  if (header === 'gzip' || header.startsWith('gzip,') || header.startsWith('gzip, ')) return true;
  let star = false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (coding.trim() === 'gzip') return allowed;
    if (coding.trim() === '*') star = allowed;
  }
  return star;
}
