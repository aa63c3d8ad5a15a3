import createClient from 'openapi-fetch';
import type { components, paths } from './v1.gen.ts';

/**
 * The typed client of Berth's public API (/api/v1) for Pro developers, generated from openapi.v1.json.
 * Needs only the server's address and an API key (from the API Access page):
 *
 *   const berth = createBerthClient({ baseUrl: 'https://berth.example', apiKey: process.env.BERTH_API_KEY });
 *   const { data, error } = await berth.GET('/api/v1/instances');
 *
 * Every call answers `{ data, error, response }` (openapi-fetch): `data` is the `{ success, message,
 * data }` envelope on success, `error` the `{ error, message, details }` body otherwise. The
 * `RateLimit-*` headers are on `response.headers`.
 */
export interface BerthClientOptions {
  /** Origin of the Berth server, e.g. 'https://berth.example' (no trailing /api/v1). */
  baseUrl: string;
  /** An API key, `berth_sk_…`; sent as `X-API-Key`. */
  apiKey: string;
  /** Milliseconds before a request is aborted (default 30 s). */
  timeoutMs?: number;
  fetch?: (input: Request) => Promise<Response>;
}

export function createBerthClient({ baseUrl, apiKey, timeoutMs = 30_000, fetch }: BerthClientOptions) {
  if (!apiKey) throw new Error('createBerthClient needs an API key (berth_sk_…)');
  const fetchImpl = fetch ?? ((input: Request) => globalThis.fetch(input));
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { 'X-API-Key': apiKey },
    fetch: (request) =>
      fetchImpl(
        new Request(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) }),
      ),
  });
}

export type BerthClient = ReturnType<typeof createBerthClient>;
export type BerthPaths = paths;
export type BerthSchemas = components['schemas'];
export type BerthInstance = components['schemas']['Instance'];
export type BerthError = components['schemas']['PublicError'];
