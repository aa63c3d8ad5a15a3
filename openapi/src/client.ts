import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.gen.ts';

export interface ApiClientOptions {
  /** Origin of the Berth server; '' (the default) means the page's own origin. */
  baseUrl?: string;
  /** The bearer token to send, read before every request (may be async: desktop keychain). */
  getToken?: () => string | null | Promise<string | null>;
  /** Called when the server answers 401, e.g. to drop a dead session. */
  onUnauthorized?: (path: string) => void;
  /** Milliseconds before a request is aborted (the spec's 30 s). */
  timeoutMs?: number;
  fetch?: (input: Request) => Promise<Response>;
}

export const API_TIMEOUT_MS = 30_000;

/** A typed client for the Berth API, generated from openapi.json. The UI and Pro developers use it. */
export function createApiClient(options: ApiClientOptions = {}) {
  const { baseUrl = '', getToken, onUnauthorized, timeoutMs = API_TIMEOUT_MS } = options;
  const client = createClient<paths>({ baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });

  const auth: Middleware = {
    async onRequest({ request }) {
      const token = await getToken?.();
      const headers = new Headers(request.headers);
      if (token) headers.set('Authorization', `Bearer ${token}`);
      // A request past the timeout rejects with a TimeoutError DOMException.
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]);
      return new Request(request, { headers, signal });
    },
    onResponse({ response, schemaPath }) {
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
