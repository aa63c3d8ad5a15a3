/**
 * The rules for the desktop's server URL, the same as the main process applies when saving
 * (desktop/src/main/settings.ts), so the form explains a refusal before sending.
 */

export const SERVER_URL_MESSAGES = {
  required: 'Enter the address of your Berth server',
  invalid: 'Enter a full address starting with http:// or https://, such as https://berth.example.com',
  extras: 'Leave out any user name, password, query (?…) or fragment (#…)',
} as const;

/** The URL as it will be stored: lower-case scheme and host, no trailing slash; null when not valid. */
export function normalizeServerUrl(input: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(input.trim());
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (parsed.username || parsed.password || parsed.search || parsed.hash) return null;
  return parsed.href.replace(/\/+$/, '');
}

/** The message for `input`, or undefined when it can be saved. */
export function serverUrlError(input: string): string | undefined {
  const value = input.trim();
  if (value === '') return SERVER_URL_MESSAGES.required;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return SERVER_URL_MESSAGES.invalid;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return SERVER_URL_MESSAGES.invalid;
  // A bare 'localhost:8080' parses with the scheme 'localhost:': caught above.
  if (parsed.username || parsed.password || parsed.search || parsed.hash) return SERVER_URL_MESSAGES.extras;
  return undefined;
}
