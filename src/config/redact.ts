/** Credentials inside a URL (`https://user:pass@host`) are secrets too. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '' && parsed.username === '') return url;
    if (parsed.username !== '') parsed.username = '<redacted>';
    if (parsed.password !== '') parsed.password = '<redacted>';
    return parsed.toString();
  } catch {
    return url;
  }
}
