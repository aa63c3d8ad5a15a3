import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { makeNotification, notificationList, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { NOTIFICATION_POLL_MS } from '../../api/notifications.queries.ts';
import { badgeText } from './notification-bell.tsx';
import { reconnectDelayMs } from './use-notification-stream.ts';

afterEach(() => {
  vi.useRealTimers();
});

function renderBell(api: FakeRoutes = {}) {
  return renderApp({ path: '/dashboard', token: 'stored', api: { ...signedInApi(), ...api } });
}

const bell = () => screen.findByRole('button', { name: /^Notifications/ });

async function openPanel(app: ReturnType<typeof renderBell>) {
  await app.user.click(await bell());
  return screen.findByRole('dialog', { name: 'Notifications' });
}

describe('badge', () => {
  it.each([
    [1, '1'],
    [9, '9'],
    [10, '9+'],
    [42, '9+'],
  ])('%i unread shows %s', (unread, text) => {
    expect(badgeText(unread)).toBe(text);
  });

  it('shows 9+ above 9 unread, and names the count', async () => {
    renderBell({ 'GET /api/notifications': { body: notificationList([makeNotification()], 12) } });
    expect(await screen.findByRole('button', { name: 'Notifications, 12 unread' })).toBeTruthy();
    expect(screen.getByText('9+')).toBeTruthy();
  });

  it('shows no badge with nothing unread', async () => {
    renderBell({ 'GET /api/notifications': { body: notificationList([makeNotification({ read: true })]) } });
    await waitFor(async () => expect((await bell()).getAttribute('aria-label')).toBe('Notifications'));
  });
});

describe('panel', () => {
  it("says 'No notifications', with Mark all read and Delete all disabled", async () => {
    const app = renderBell();
    const panel = await openPanel(app);
    expect(within(panel).getByText('No notifications')).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Mark all read' })).toHaveProperty('disabled', true);
    expect(within(panel).getByRole('button', { name: 'Delete all' })).toHaveProperty('disabled', true);
  });

  it('lists the notifications; Mark all read is disabled when all are read', async () => {
    const app = renderBell({
      'GET /api/notifications': {
        body: notificationList([
          makeNotification({ title: 'Welcome to Berth!', read: true }),
          makeNotification({ title: 'Password changed', read: true }),
        ]),
      },
    });
    const panel = await openPanel(app);
    expect(await within(panel).findByText('Welcome to Berth!')).toBeTruthy();
    expect(within(panel).getByText('Password changed')).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Mark all read' })).toHaveProperty('disabled', true);
    expect(within(panel).getByRole('button', { name: 'Delete all' })).toHaveProperty('disabled', false);
  });

  it('marks all read', async () => {
    const items = [makeNotification({ title: 'Trial ends in 5 minutes' })];
    const app = renderBell({ 'GET /api/notifications': { body: notificationList(items) } });
    const panel = await openPanel(app);
    app.api.on({
      'POST /api/notifications/mark-read': { body: { count: 1, unread: 0 } },
      'GET /api/notifications': {
        body: notificationList([{ ...items[0], read: true } as (typeof items)[0]]),
      },
    });
    await app.user.click(await within(panel).findByRole('button', { name: 'Mark all read' }));
    expect(app.api.calls('POST /api/notifications/mark-read')[0]?.body).toEqual({ all: true });
    await waitFor(() =>
      expect(within(panel).getByRole('button', { name: 'Mark all read' })).toHaveProperty('disabled', true),
    );
    // The modal panel hides the rest of the page from the accessibility tree.
    expect(
      screen.getByRole('button', { name: /^Notifications/, hidden: true }).getAttribute('aria-label'),
    ).toBe('Notifications');
  });

  it('deletes one notification', async () => {
    const keep = makeNotification({ title: 'Keep me' });
    const drop = makeNotification({ title: 'Drop me' });
    const app = renderBell({ 'GET /api/notifications': { body: notificationList([keep, drop]) } });
    const panel = await openPanel(app);
    app.api.on({
      [`DELETE /api/notifications/${drop.id}`]: { body: { count: 1, unread: 1 } },
      'GET /api/notifications': { body: notificationList([keep]) },
    });
    await app.user.click(await within(panel).findByRole('button', { name: 'Delete notification: Drop me' }));
    await waitFor(() => expect(within(panel).queryByText('Drop me')).toBeNull());
    expect(within(panel).getByText('Keep me')).toBeTruthy();
    expect(app.api.calls(`DELETE /api/notifications/${drop.id}`)).toHaveLength(1);
  });

  it('deletes all', async () => {
    const app = renderBell({ 'GET /api/notifications': { body: notificationList([makeNotification()]) } });
    const panel = await openPanel(app);
    app.api.on({
      'DELETE /api/notifications': { body: { count: 1, unread: 0 } },
      'GET /api/notifications': { body: notificationList() },
    });
    await app.user.click(await within(panel).findByRole('button', { name: 'Delete all' }));
    expect(await within(panel).findByText('No notifications')).toBeTruthy();
    expect(app.api.calls('DELETE /api/notifications')).toHaveLength(1);
  });

  it("opens Get Help on the 'my' tab for a help-desk notification, and marks it read", async () => {
    const reply = makeNotification({ type: 'helpdesk', title: 'Support answered your ticket' });
    const app = renderBell({
      'GET /api/notifications': { body: notificationList([reply]) },
      'POST /api/notifications/mark-read': { body: { count: 1, unread: 0 } },
    });
    const panel = await openPanel(app);
    await app.user.click(await within(panel).findByText('Support answered your ticket'));
    await waitFor(() => expect(app.location()).toBe('/get-help?tab=my'));
    expect(app.api.calls('POST /api/notifications/mark-read')[0]?.body).toEqual({ ids: [reply.id] });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Notifications' })).toBeNull());
  });

  it('ignores failures silently', async () => {
    const app = renderBell({
      'GET /api/notifications': { body: notificationList([makeNotification({ title: 'Still here' })]) },
      'DELETE /api/notifications': { status: 500, body: { error: 'internal_error', message: 'Boom' } },
    });
    const panel = await openPanel(app);
    await app.user.click(await within(panel).findByRole('button', { name: 'Delete all' }));
    await waitFor(() => expect(app.api.calls('DELETE /api/notifications')).toHaveLength(1));
    expect(await within(panel).findByText('Still here')).toBeTruthy();
    expect(screen.queryByText('Boom')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('refresh', () => {
  it('reloads every 60 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderBell();
    await waitFor(() => expect(app.api.calls('GET /api/notifications')).toHaveLength(1));
    await act(async () => {
      vi.advanceTimersByTime(NOTIFICATION_POLL_MS);
    });
    await waitFor(() => expect(app.api.calls('GET /api/notifications')).toHaveLength(2));
  });

  it('opens the live stream with a fresh stream token', async () => {
    const app = renderBell({
      'POST /api/notifications/stream-token': { body: { token: 'tok-1', expiresIn: 60 } },
    });
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    const url = app.streams.latest()?.url;
    expect(url?.pathname).toBe('/api/notifications/stream');
    expect(url?.searchParams.get('token')).toBe('tok-1');
    expect(app.api.calls('POST /api/notifications/stream-token')[0]?.headers.get('authorization')).toBe(
      'Bearer stored',
    );
  });

  it('reloads on each stream message and passes new ones to the system notifications', async () => {
    const app = renderBell();
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    await waitFor(() => expect(app.api.calls('GET /api/notifications')).toHaveLength(1));

    const fresh = makeNotification({
      type: 'trial',
      title: 'Trial ends in 5 minutes',
      message: 'Pick a plan to keep your instance.',
    });
    app.api.on({ 'GET /api/notifications': { body: notificationList([fresh]) } });
    app.streams.latest()?.emit('notification', JSON.stringify(fresh), fresh.id);

    await waitFor(() => expect(app.api.calls('GET /api/notifications')).toHaveLength(2));
    expect(await screen.findByRole('button', { name: 'Notifications, 1 unread' })).toBeTruthy();
    expect(app.notified).toEqual([
      { title: 'Trial ends in 5 minutes', body: 'Pick a plan to keep your instance.', route: '/billing' },
    ]);

    app.streams.latest()?.emit('resync');
    await waitFor(() => expect(app.api.calls('GET /api/notifications')).toHaveLength(3));
    expect(app.notified).toHaveLength(1);
  });

  it.each([
    ['instance', '/instances'],
    ['helpdesk', '/get-help?tab=my'],
    ['billing', '/billing'],
    ['security', '/profile'],
    ['welcome', '/dashboard'],
  ])('a system notification of type %s opens %s when the host reports a click', async (type, route) => {
    const app = renderApp({ path: '/profile', token: 'stored', api: signedInApi(), host: { desktop: true } });
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    const fresh = makeNotification({ type, title: 'Heads up', message: 'Something changed.' });
    app.streams.latest()?.emit('notification', JSON.stringify(fresh), fresh.id);
    await waitFor(() =>
      expect(app.notified).toEqual([{ title: 'Heads up', body: 'Something changed.', route }]),
    );

    // What the desktop's main process does on a click (desktop/test/notifications.test.ts): the route
    // comes back through the Platform and the router shows it.
    act(() => app.openRoute(route));
    await waitFor(() => expect(app.location()).toBe(route));
  });

  it('reconnects after an error with a fresh token, resuming after the last event', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let issued = 0;
    const app = renderBell({
      'POST /api/notifications/stream-token': () => ({ body: { token: `tok-${++issued}`, expiresIn: 60 } }),
    });
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    const first = app.streams.latest();
    first?.emit('notification', JSON.stringify(makeNotification()), 'event-7');
    first?.emit('error');
    expect(first?.closed).toBe(true);

    await act(async () => {
      vi.advanceTimersByTime(reconnectDelayMs(1));
    });
    await waitFor(() => expect(app.streams.opened).toHaveLength(2));
    const second = app.streams.latest()?.url;
    expect(second?.searchParams.get('token')).toBe('tok-2');
    expect(second?.searchParams.get('lastEventId')).toBe('event-7');
  });

  it('closes the stream on logout', async () => {
    const app = renderBell();
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    await app.user.click(await screen.findByRole('button', { name: /^Account menu/ }));
    await app.user.click(await screen.findByRole('menuitem', { name: 'Logout' }));
    await waitFor(() => expect(app.location()).toBe('/login'));
    expect(app.streams.latest()?.closed).toBe(true);
  });
});
