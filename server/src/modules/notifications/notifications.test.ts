import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTestApp,
  present,
  type Requester,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import {
  type ListeningApp,
  type ServerProcess,
  startListeningApp,
  startServerProcess,
} from '../../../test/server-process.ts';
import { type EventStream, openEventStream } from '../../../test/sse-client.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { createNotificationsService, type NotificationsService } from './notifications.service.ts';

let db: Db;
let dbUrl: string;
let service: NotificationsService;
let app: TestApp;

beforeAll(async () => {
  ({ db, url: dbUrl } = await createTestDatabase());
  service = createNotificationsService({ db });
  app = createTestApp(db);
});
beforeEach(() => truncateAll(db));

const note = (title: string) => ({ type: 'announcement', title, message: `${title}: details` });

describe('notifications API', () => {
  it('greets a new account with a welcome notification, listed with _id and id', async () => {
    const { token } = await register(app);
    const res = await call(app, 'GET', '/api/notifications', { token });
    expect(res.status).toBe(200);
    expect(res.json.unread).toBe(1);
    const welcome = present(res.json.items[0], 'the welcome notification');
    expect(welcome).toEqual({
      _id: welcome.id,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'welcome',
      title: 'Welcome to Berth!',
      message: expect.stringContaining('60-minute free trial'),
      createdAt: expect.any(String),
      read: false,
    });
  });

  it('tells the user when the password was changed', async () => {
    const { token, body } = await register(app);
    const changed = await call(app, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: body.password, newPassword: 'Brand#new42' },
    });
    const res = await call(app, 'GET', '/api/notifications', { token: changed.json.token });
    expect(res.json.items[0]).toMatchObject({ type: 'security', title: 'Password changed', read: false });
    expect(res.json.unread).toBe(2);
  });

  it('lists newest first and marks read by ids (ignoring other users’ ids) or all', async () => {
    const { token, user } = await register(app);
    const other = await register(app);
    const first = await service.notify(String(user.id), note('First'));
    const second = await service.notify(String(user.id), note('Second'));
    const foreign = await service.notify(String(other.user.id), note('Not yours'));

    const list = await call(app, 'GET', '/api/notifications', { token });
    expect(list.json.items.map((n: { title: string }) => n.title)).toEqual([
      'Second',
      'First',
      'Welcome to Berth!',
    ]);
    expect(list.json.unread).toBe(3);

    const some = await call(app, 'POST', '/api/notifications/mark-read', {
      token,
      body: { ids: [first.id, foreign.id] },
    });
    expect(some.json).toEqual({ count: 1, unread: 2 });
    expect((await service.get(String(other.user.id), foreign.id))?.read).toBe(false);

    const all = await call(app, 'POST', '/api/notifications/mark-read', { token, body: { all: true } });
    expect(all.json).toEqual({ count: 2, unread: 0 });
    expect((await service.get(String(user.id), second.id))?.read).toBe(true);
    expect((await call(app, 'GET', '/api/notifications', { token: other.token })).json.unread).toBe(2);
  });

  it.each([
    [{}, 'Send { all: true } or { ids: [...] }'],
    [{ ids: [] }, 'Send { all: true } or { ids: [...] }'],
    [{ all: false }, 'Invalid input: expected true'],
    [{ ids: ['nope'] }, 'Unknown notification id'],
  ])('refuses mark-read body %j', async (body, message) => {
    const { token } = await register(app);
    const res = await call(app, 'POST', '/api/notifications/mark-read', { token, badBody: body });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(message);
  });

  it('deletes one notification of the user, answers 404 for another user’s, and deletes all', async () => {
    const { token, user } = await register(app);
    const other = await register(app);
    const mine = await service.notify(String(user.id), note('Mine'));
    const theirs = await service.notify(String(other.user.id), note('Theirs'));

    const foreign = await call(app, 'DELETE', `/api/notifications/${theirs.id}`, { token });
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({ error: 'not_found', message: 'Notification not found' });
    expect(await service.get(String(other.user.id), theirs.id)).toBeDefined();

    const one = await call(app, 'DELETE', `/api/notifications/${mine.id}`, { token });
    expect(one.json).toEqual({ count: 1, unread: 1 });
    expect((await call(app, 'DELETE', `/api/notifications/${mine.id}`, { token })).status).toBe(404);

    const all = await call(app, 'DELETE', '/api/notifications', { token });
    expect(all.json).toEqual({ count: 1, unread: 0 });
    expect((await call(app, 'GET', '/api/notifications', { token })).json.items).toEqual([]);
    expect((await call(app, 'GET', '/api/notifications', { token: other.token })).json.items).toHaveLength(2);
  });

  it('answers the client settings', async () => {
    const { token } = await register(app);
    const res = await call(app, 'GET', '/api/notifications/config', { token });
    expect(res.json).toEqual({
      pollIntervalMs: 60000,
      streamUrl: '/api/notifications/stream',
      streamTokenUrl: '/api/notifications/stream-token',
      smtpEnabled: false,
    });
  });

  it('needs a signed-in user everywhere but the stream', async () => {
    for (const [method, path] of [
      ['GET', '/api/notifications'],
      ['POST', '/api/notifications/mark-read'],
      ['DELETE', '/api/notifications'],
      ['GET', '/api/notifications/config'],
      ['POST', '/api/notifications/stream-token'],
    ] as const) {
      const body = method === 'POST' ? { all: true } : undefined;
      expect((await call(app, method, path, { body })).status, path).toBe(401);
    }
  });
});

/** Where a stream is opened: a server process of its own (main.ts), or the test's app on a port. */
type Instance = { url: string } & Requester;

async function openStream(
  instance: Instance,
  sessionToken: string,
  headers: Record<string, string> = {},
  query = '',
) {
  const minted = await call(instance, 'POST', '/api/notifications/stream-token', { token: sessionToken });
  expect(minted.json.expiresIn).toBe(60);
  const stream = await openEventStream(
    `${instance.url}/api/notifications/stream?token=${minted.json.token}${query}`,
    headers,
  );
  expect(stream.response.status).toBe(200);
  expect(await stream.next()).toEqual({ retry: 3000 });
  return stream;
}

const titled = (title: string) => (m: { event?: string; data?: string }) =>
  m.event === 'notification' && JSON.parse(m.data ?? '{}').title === title;

describe('live stream', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  const streams: EventStream[] = [];
  beforeAll(async () => {
    a = await startServerProcess(dbUrl);
    b = await startServerProcess(dbUrl);
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await a.stop();
    await b.stop();
  });
  const track = (s: EventStream) => {
    streams.push(s);
    return s;
  };

  it('refuses a bad token with a JSON 401 before streaming', async () => {
    const { token: sessionToken } = await register(a);
    for (const token of ['garbage', sessionToken]) {
      const res = await fetch(`${a.url}/api/notifications/stream?token=${token}`);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(await res.json()).toEqual({ error: 'unauthorized', message: 'Invalid or expired stream token' });
    }
    expect((await fetch(`${a.url}/api/notifications/stream`)).status).toBe(400);
  });

  it('delivers a notification inserted through the service at once, with its id', async () => {
    const { token, user } = await register(a);
    const stream = track(await openStream(a, token));
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.response.headers.get('x-accel-buffering')).toBe('no');
    expect(stream.response.headers.get('cache-control')).toBe('no-cache');

    // Pushed to the open stream by the hub (no poll), with the id the service answered.
    const sent = await service.notify(String(user.id), note('Live'));
    const message = await stream.next(titled('Live'), 5000);
    expect(message.id).toBe(sent.id);
    expect(JSON.parse(message.data ?? '')).toEqual(sent);
  });

  it('reaches the streams on both server processes, whichever process wrote it', async () => {
    const { token, body, user } = await register(a);
    const onA = track(await openStream(a, token));
    const onB = track(await openStream(b, token));

    // Written by instance A's HTTP handler (a password change, which then closes both streams)...
    const changed = await call(a, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: body.password, newPassword: 'Brand#new42' },
    });
    await Promise.all([
      onA.next(titled('Password changed'), 5000),
      onB.next(titled('Password changed'), 5000),
    ]);

    // ...and by code outside both, to streams opened with the new session.
    const againA = track(await openStream(a, changed.json.token));
    const againB = track(await openStream(b, changed.json.token));
    await service.notify(String(user.id), note('From elsewhere'));
    await Promise.all([
      againA.next(titled('From elsewhere'), 5000),
      againB.next(titled('From elsewhere'), 5000),
    ]);
  });

  it('sends a user only their own notifications', async () => {
    const mine = await register(a);
    const other = await register(a);
    const stream = track(await openStream(a, mine.token));
    await service.notify(String(other.user.id), note('Not for you'));
    await service.notify(String(mine.user.id), note('For you'));
    const first = await stream.next((m) => m.event === 'notification');
    expect(JSON.parse(first.data ?? '').title).toBe('For you');
  });

  it('replays the notifications after Last-Event-ID (header or query) on reconnect', async () => {
    const { token, user } = await register(a);
    const seen = await service.notify(String(user.id), note('Seen'));
    await service.notify(String(user.id), note('Missed 1'));
    await service.notify(String(user.id), note('Missed 2'));

    for (const [headers, query] of [
      [{ 'last-event-id': seen.id }, ''],
      [{}, `&lastEventId=${seen.id}`],
    ] as const) {
      const stream = track(await openStream(b, token, headers, query));
      const replay = [await stream.next(), await stream.next()];
      expect(replay.map((m) => JSON.parse(m.data ?? '').title)).toEqual(['Missed 1', 'Missed 2']);
      stream.close();
    }
  });

  it('sends a heartbeat comment while idle', async () => {
    // main.ts beats every 20 s; a fast beat is a setting of the in-process app only.
    const quick: ListeningApp = await startListeningApp(db, dbUrl, { sseHeartbeatMs: 50 });
    try {
      const { token } = await register(quick.app);
      const stream = track(await openStream(quick, token));
      expect(await stream.next((m) => m.comment !== undefined, 1000)).toEqual({ comment: 'ping' });
    } finally {
      await quick.stop();
    }
  });

  it('reconnects a lost LISTEN connection, tells streams to resync, and delivers again', async () => {
    const { token, user } = await register(a);
    const stream = track(await openStream(a, token));
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where datname = current_database() and query ilike 'listen%'`.execute(db);
    await stream.next((m) => m.event === 'resync', 3000);
    await service.notify(String(user.id), note('After the outage'));
    await stream.next(titled('After the outage'), 5000);
  });
});
