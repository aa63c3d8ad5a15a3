import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionUser } from '../src/main/session-user.ts';

/**
 * The main process asks the server whose a stored token is, over HTTP (a local server answers as Berth's
 * GET /api/auth/profile does: the user for a token it issued, 401 for any other).
 */
describe('createSessionUser', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function berth(users: Record<string, string>) {
    const seen: string[] = [];
    server = createServer((req, res) => {
      const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
      seen.push(`${req.method} ${req.url} ${token}`);
      const id = req.url === '/api/auth/profile' ? users[token] : undefined;
      res.writeHead(id ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(id ? { user: { id } } : { error: 'unauthorized', message: 'Invalid token' }));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  it('answers the user the server names for the token, asking once per token', async () => {
    const { url, seen } = await berth({ 'token-a': 'user-a' });
    const sessionUser = createSessionUser();
    expect(await sessionUser(url, 'token-a')).toBe('user-a');
    expect(await sessionUser(url, 'token-a')).toBe('user-a');
    expect(seen).toEqual(['GET /api/auth/profile token-a']);
  });

  it('answers null for a token the server refuses, and asks again next time', async () => {
    const { url, seen } = await berth({});
    const sessionUser = createSessionUser();
    expect(await sessionUser(url, 'made-up')).toBeNull();
    expect(await sessionUser(url, 'made-up')).toBeNull();
    expect(seen).toHaveLength(2);
  });
});
