import { vi } from 'vitest';

/** A canned answer: status (default 200) and JSON body; or a function of the recorded request. */
export interface CannedAnswer {
  status?: number;
  body?: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  search: string;
  headers: Headers;
  /** Parsed JSON, or the FormData of a multipart upload. */
  body: unknown;
}

type Answer = CannedAnswer | ((request: RecordedRequest) => CannedAnswer | Promise<CannedAnswer>);

/** Keys are 'METHOD /path', e.g. 'POST /api/auth/login'. */
export type FakeRoutes = Record<string, Answer>;

/**
 * A fake `fetch` for the real typed API client: answers canned JSON per method and path, records
 * every request, and answers 404 for anything it does not know. `install()` makes it the global
 * fetch (the client picks up `globalThis.fetch` when created).
 */
export function fakeApi(initialRoutes: FakeRoutes = {}) {
  const routes: FakeRoutes = { ...initialRoutes };
  const requests: RecordedRequest[] = [];

  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const multipart = request.headers.get('content-type')?.startsWith('multipart/form-data') ?? false;
    const text = multipart ? '' : await request.text();
    const recorded: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      search: url.search,
      headers: request.headers,
      body: multipart ? await request.formData() : text ? (JSON.parse(text) as unknown) : undefined,
    };
    requests.push(recorded);
    const answer = routes[`${recorded.method} ${recorded.path}`];
    const { status = 200, body } =
      answer === undefined
        ? {
            status: 404,
            body: { error: 'not_found', message: `No route for ${recorded.method} ${recorded.path}` },
          }
        : typeof answer === 'function'
          ? await answer(recorded)
          : answer;
    return new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  };

  return {
    fetch,
    requests,
    /** Adds or replaces answers. */
    on(more: FakeRoutes) {
      Object.assign(routes, more);
    },
    /** The requests made to `METHOD /path`. */
    calls(key: string) {
      return requests.filter((request) => `${request.method} ${request.path}` === key);
    },
    install() {
      vi.stubGlobal('fetch', fetch);
    },
  };
}

export type FakeApi = ReturnType<typeof fakeApi>;
