import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.gen.ts';

type MaybePromise<T> = T | Promise<T>;

/** What POST /api/auth/refresh (and sign-in, and a password change) answers. */
export type SessionTokens = components['schemas']['SessionTokens'];

export interface ApiClientOptions {
  /** Origin of the Berth server; '' (the default) means the page's own origin. */
  baseUrl?: string;
  /** The bearer token to send, read before every request (may be async: desktop keychain). */
  getToken?: () => MaybePromise<string | null>;
  /** The refresh token stored beside it; with `onTokens`, turns on transparent refresh. */
  getRefreshToken?: () => MaybePromise<string | null>;
  /** Stores a new pair from POST /api/auth/refresh (before the failed call is retried with it). */
  onTokens?: (tokens: SessionTokens) => MaybePromise<void>;
  /**
   * An authenticated call got 401 and the session could not be refreshed (no refresh token, or the
   * server refused it): the session is over, sign out.
   */
  onSessionEnded?: () => void;
  /** Called when the server answers 401 (after any refresh), e.g. to drop a dead session. */
  onUnauthorized?: (path: string) => void;
  /** Milliseconds before a request is aborted (the spec's 30 s). */
  timeoutMs?: number;
  fetch?: (input: Request) => Promise<Response>;
}

export const API_TIMEOUT_MS = 30_000;
export const REFRESH_PATH = '/api/auth/refresh';

/** Calls whose 401 says nothing about the session (wrong password, bad refresh token). */
const NO_REFRESH = new Set(['/api/auth/login', '/api/auth/register', REFRESH_PATH, '/api/auth/logout']);

/**
 * A typed client for the Berth API, generated from openapi.json. The UI and Pro developers use it.
 *
 * With `getRefreshToken` and `onTokens` it keeps a session alive: when an authenticated call answers
 * 401 it refreshes once (concurrent calls wait for the same refresh), stores the new pair, retries the
 * call with the new access token, and calls `onSessionEnded` only when the refresh is refused.
 */
export function createApiClient(options: ApiClientOptions = {}) {
  const {
    baseUrl = '',
    getToken,
    getRefreshToken,
    onTokens,
    onUnauthorized,
    timeoutMs = API_TIMEOUT_MS,
  } = options;
  const fetchImpl = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const client = createClient<paths>({ baseUrl, fetch: fetchImpl });
  const canRefresh = Boolean(getRefreshToken && onTokens);

  /** Copies of authenticated requests as sent, with the token they carried, for one retry. */
  const sent = new WeakMap<Request, { copy: Request; token: string }>();
  let refreshing: Promise<string | null> | null = null;

  /** A fresh access token, or null when the session cannot go on. Throws when the server was unreachable. */
  async function refresh(staleToken: string): Promise<string | null> {
    // Another call (or tab) already replaced the token: use that one.
    const current = await getToken?.();
    if (current && current !== staleToken) return current;
    const refreshToken = await getRefreshToken?.();
    if (!refreshToken) return null;
    const response = await fetchImpl(
      new Request(`${baseUrl}${REFRESH_PATH}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ refreshToken }),
        signal: AbortSignal.timeout(timeoutMs),
      }),
    );
    if (response.status >= 500) throw new Error(`Session refresh failed with status ${response.status}`);
    if (!response.ok) {
      // A password change in this client may have stored a new pair meanwhile.
      const latest = await getToken?.();
      return latest && latest !== staleToken ? latest : null;
    }
    const tokens = (await response.json()) as SessionTokens;
    await onTokens?.(tokens);
    return tokens.token;
  }

  const auth: Middleware = {
    async onRequest({ request, schemaPath }) {
      const token = await getToken?.();
      const headers = new Headers(request.headers);
      if (token) headers.set('Authorization', `Bearer ${token}`);
      // A request past the timeout rejects with a TimeoutError DOMException.
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]);
      const outgoing = new Request(request, { headers, signal });
      if (token && canRefresh && !NO_REFRESH.has(schemaPath))
        sent.set(outgoing, { copy: outgoing.clone(), token });
      return outgoing;
    },
    async onResponse({ request, response, schemaPath }) {
      const original = sent.get(request);
      sent.delete(request);
      if (response.status === 401 && original) {
        refreshing ??= refresh(original.token).finally(() => {
          refreshing = null;
        });
        const token = await refreshing;
        if (token) {
          const headers = new Headers(original.copy.headers);
          headers.set('Authorization', `Bearer ${token}`);
          const retried = await fetchImpl(new Request(original.copy, { headers }));
          if (retried.status === 401) onUnauthorized?.(schemaPath);
          return retried;
        }
        options.onSessionEnded?.();
      }
      if (response.status === 401) onUnauthorized?.(schemaPath);
      return undefined;
    },
  };
  client.use(auth);
  return client;
}

export type ApiClient = ReturnType<typeof createApiClient>;
export type ApiPaths = paths;
export type Schemas = components['schemas'];
