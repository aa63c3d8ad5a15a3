import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../src/index.ts';

// A real HTTP peer on loopback that records what the client sends.
let server: Server;
let baseUrl: string;
const seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url === '/api/auth/profile' && req.headers.authorization !== 'Bearer good') {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'unauthorized', message: 'Authentication required' }));
        return;
      }
      if (req.url === '/api/health') {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status: 'ok', database: 'ok', version: '1' }));
        }, 300);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ token: 't', user: { username: 'ada' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('createApiClient', () => {
  it('sends the bearer token it reads (also async) and typed JSON bodies', async () => {
    const client = createApiClient({ baseUrl, getToken: async () => 'good' });
    const { data, response } = await client.GET('/api/auth/profile');
    expect(response.status).toBe(200);
    expect(data).toBeDefined();
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer good');

    await client.POST('/api/auth/login', { body: { emailOrUsername: 'ada', password: 'pw' } });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/api/auth/login' });
    expect(JSON.parse(seen.at(-1)?.body ?? '')).toEqual({ emailOrUsername: 'ada', password: 'pw' });
  });

  it('sends no Authorization header without a token and reports 401s', async () => {
    const unauthorized: string[] = [];
    const client = createApiClient({
      baseUrl,
      getToken: () => null,
      onUnauthorized: (p) => unauthorized.push(p),
    });
    const { error, response } = await client.GET('/api/auth/profile');
    expect(response.status).toBe(401);
    expect(error).toEqual({ error: 'unauthorized', message: 'Authentication required' });
    expect(seen.at(-1)?.headers.authorization).toBeUndefined();
    expect(unauthorized).toEqual(['/api/auth/profile']);
  });

  it('gives up after the timeout', async () => {
    const client = createApiClient({ baseUrl, timeoutMs: 50 });
    await expect(client.GET('/api/health')).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('rejects a wrong body at compile time', () => {
    const client = createApiClient({ baseUrl });
    // @ts-expect-error: emailOrUsername is required by the contract
    const call = () => client.POST('/api/auth/login', { body: { password: 'pw' } });
    expect(typeof call).toBe('function');
  });
});
