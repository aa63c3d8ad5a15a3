import { describe, expect, it } from 'vitest';
import { deferredApiClient } from './api-client-provider.tsx';

/** A network that records the requests and answers each with its path and bearer token. */
function recordingFetch() {
  const sent: Request[] = [];
  const fetch = async (request: Request) => {
    sent.push(request);
    const body = { path: new URL(request.url).pathname, auth: request.headers.get('authorization') };
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  };
  return { sent, fetch };
}

describe('deferredApiClient', () => {
  it('sends calls made before its code has loaded through the real client, with the token', async () => {
    const network = recordingFetch();
    const client = deferredApiClient({
      baseUrl: 'http://berth.test',
      getToken: () => 'tok',
      fetch: network.fetch,
    });
    const [config, logout] = await Promise.all([
      client.GET('/api/config'),
      client.POST('/api/auth/logout', { body: { refreshToken: 'r' } }),
    ]);
    expect(config.data).toEqual({ path: '/api/config', auth: 'Bearer tok' });
    expect(logout.response.status).toBe(200);
    expect(network.sent.map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
      'GET /api/config',
      'POST /api/auth/logout',
    ]);
  });

  it('loads its code once, and runs middleware registered before the first call', async () => {
    const network = recordingFetch();
    const client = deferredApiClient({ baseUrl: 'http://berth.test', fetch: network.fetch });
    client.use({ onRequest: ({ request }) => new Request(request, { headers: { 'x-seen': 'yes' } }) });
    expect(client.load()).toBe(client.load());
    await client.GET('/api/config');
    expect(network.sent[0]?.headers.get('x-seen')).toBe('yes');
  });
});
