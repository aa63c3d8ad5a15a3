/**
 * Whose session the main process holds: the server says it, asked with the stored access token
 * (`GET /api/auth/profile`). The token comes from the renderer, so what it looks like (a JWT's `sub`)
 * is never believed: a renderer could store a token it made up, and only the server can tell a real one.
 */
export type SessionUser = (serverUrl: string, token: string) => Promise<string | null>;

/** Answers kept (the newest): a token is asked about once, not on every secret read. */
const KEPT = 8;

/** The user id the server gives for the token, or null when it refuses it (signed out, expired, made up). */
export function createSessionUser(fetchFrom: typeof fetch = fetch): SessionUser {
  const known = new Map<string, string>();
  return async (serverUrl, token) => {
    const key = `${serverUrl}\n${token}`;
    const kept = known.get(key);
    if (kept !== undefined) return kept;
    const res = await fetchFrom(`${serverUrl}/api/auth/profile`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      redirect: 'error',
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { user?: { id?: unknown } } | null;
    const id = body?.user?.id;
    if (typeof id !== 'string' || id === '') return null;
    if (known.size >= KEPT) known.delete(known.keys().next().value ?? '');
    known.set(key, id);
    return id;
  };
}
