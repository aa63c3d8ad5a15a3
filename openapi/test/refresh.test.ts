import { describe, expect, it } from 'vitest';
import { createApiClient, type SessionTokens } from '../src/index.ts';

const BASE = 'http://berth.test';

/**
 * A fake server behind `fetch`: access token `valid` works; POST /api/auth/refresh exchanges the
 * refresh token `r1` (once) for the pair `valid`/`r2`.
 */
function fakeServer(options: { refreshStatus?: number; refreshDelayMs?: number } = {}) {
  const calls: { method: string; path: string; auth: string | null; body: string }[] = [];
  let refreshes = 0;
  const fetch = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const body = await request.text();
    calls.push({ method: request.method, path, auth: request.headers.get('authorization'), body });
    const json = (status: number, value: unknown) =>
      new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
    if (path === '/api/auth/refresh') {
      refreshes += 1;
      await new Promise((resolve) => setTimeout(resolve, options.refreshDelayMs ?? 0));
      if (options.refreshStatus) return json(options.refreshStatus, { error: 'unauthorized', message: 'no' });
      const { refreshToken } = JSON.parse(body) as { refreshToken: string };
      if (refreshToken !== 'r1') return json(401, { error: 'unauthorized', message: 'Invalid' });
      const pair: SessionTokens = {
        token: 'valid',
        refreshToken: 'r2',
        expiresIn: 900,
        refreshTokenExpiresAt: '2027-01-01T00:00:00.000Z',
      };
      return json(200, pair);
    }
    if (request.headers.get('authorization') !== 'Bearer valid')
      return json(401, { error: 'unauthorized', message: 'Session expired, please sign in again' });
    return json(200, { path, body: body ? JSON.parse(body) : null });
  };
  return { fetch, calls, refreshCount: () => refreshes };
}

/** A token store like the UI's: the access and refresh token, and whether the session ended. */
function store(token: string | null, refreshToken: string | null) {
  const state = { token, refreshToken, ended: 0, unauthorized: [] as string[] };
  return {
    state,
    options: {
      getToken: async () => state.token,
      getRefreshToken: async () => state.refreshToken,
      onTokens: async (pair: SessionTokens) => {
        state.token = pair.token;
        state.refreshToken = pair.refreshToken;
      },
      onSessionEnded: () => {
        state.ended += 1;
      },
      onUnauthorized: (path: string) => state.unauthorized.push(path),
    },
  };
}

describe('transparent refresh', () => {
  it('refreshes once on a 401, stores both new tokens, and retries the call with its body', async () => {
    const server = fakeServer();
    const tokens = store('expired', 'r1');
    const client = createApiClient({ baseUrl: BASE, fetch: server.fetch, ...tokens.options });
    const { data, response } = await client.PUT('/api/auth/profile', {
      body: { firstName: 'Ada', lastName: 'King', username: 'ada' },
    });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ body: { firstName: 'Ada', username: 'ada' } });
    expect(tokens.state).toMatchObject({ token: 'valid', refreshToken: 'r2', ended: 0 });
    expect(server.calls.map((c) => `${c.method} ${c.path} ${c.auth}`)).toEqual([
      'PUT /api/auth/profile Bearer expired',
      'POST /api/auth/refresh null',
      'PUT /api/auth/profile Bearer valid',
    ]);
    expect(JSON.parse(server.calls[1]?.body ?? '')).toEqual({ refreshToken: 'r1' });
    expect(tokens.state.unauthorized).toEqual([]);
  });

  it('makes concurrent calls wait for one refresh (single flight)', async () => {
    const server = fakeServer({ refreshDelayMs: 30 });
    const tokens = store('expired', 'r1');
    const client = createApiClient({ baseUrl: BASE, fetch: server.fetch, ...tokens.options });
    const results = await Promise.all([
      client.GET('/api/auth/profile'),
      client.GET('/api/notifications'),
      client.POST('/api/notifications/stream-token'),
    ]);
    expect(results.map((r) => r.response.status)).toEqual([200, 200, 200]);
    expect(server.refreshCount()).toBe(1);
    // A call that fails after the refresh finished uses the stored token instead of refreshing again.
    tokens.state.token = 'valid';
    expect((await client.GET('/api/auth/profile')).response.status).toBe(200);
    expect(server.refreshCount()).toBe(1);
  });

  it('ends the session only when the refresh is refused, and does not retry', async () => {
    const server = fakeServer({ refreshStatus: 401 });
    const tokens = store('expired', 'r1');
    const client = createApiClient({ baseUrl: BASE, fetch: server.fetch, ...tokens.options });
    const { response, error } = await client.GET('/api/auth/profile');
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ error: 'unauthorized' });
    expect(tokens.state.ended).toBe(1);
    expect(tokens.state.unauthorized).toEqual(['/api/auth/profile']);
    expect(server.calls.filter((c) => c.path === '/api/auth/profile')).toHaveLength(1);
  });

  it('ends the session without a refresh token, and never refreshes for sign-in or anonymous calls', async () => {
    const server = fakeServer();
    const none = store('expired', null);
    await createApiClient({ baseUrl: BASE, fetch: server.fetch, ...none.options }).GET('/api/auth/profile');
    expect(none.state.ended).toBe(1);

    const anonymous = store(null, 'r1');
    const client = createApiClient({ baseUrl: BASE, fetch: server.fetch, ...anonymous.options });
    await client.GET('/api/auth/profile');
    await client.POST('/api/auth/login', { body: { emailOrUsername: 'ada', password: 'wrong' } });
    expect(server.refreshCount()).toBe(0);
    expect(anonymous.state.ended).toBe(0);
  });

  it('keeps the session when the refresh could not reach the server', async () => {
    const server = fakeServer({ refreshStatus: 503 });
    const tokens = store('expired', 'r1');
    const client = createApiClient({ baseUrl: BASE, fetch: server.fetch, ...tokens.options });
    await expect(client.GET('/api/auth/profile')).rejects.toThrow('Session refresh failed with status 503');
    expect(tokens.state).toMatchObject({ token: 'expired', refreshToken: 'r1', ended: 0 });
  });
});
