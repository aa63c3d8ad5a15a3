// The live notification stream: a notification the
// server creates reaches an open page through Server-Sent Events in under a second, and the bell's
// unread badge and panel show it without a reload.
import type { Page, Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, browserSuite, type CreatedAccount, createAccount, openSignedIn, shot } from './helpers.ts';
import { localDriverEnv, type RunningServer } from './server.ts';

/** What the page's EventSources saw, recorded by an init script (timestamps are Date.now()). */
interface StreamLog {
  opened: number[];
  notifications: { at: number; title: string; createdAt: string }[];
}

declare global {
  interface Window {
    __streamLog?: StreamLog;
  }
}

let server: RunningServer;
let page: Page;
let user: CreatedAccount;

// The real local driver: deploying a database is what makes the server notify here.
browserSuite(
  'notifications',
  (suite) => {
    ({ server, page } = suite);
  },
  localDriverEnv,
);

beforeAll(async () => {
  // Watches the app's own EventSource (the app is not changed): when it opens, and each notification.
  await page.addInitScript(() => {
    const log: StreamLog = { opened: [], notifications: [] };
    window.__streamLog = log;
    const Native = window.EventSource;
    window.EventSource = class extends Native {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        this.addEventListener('open', () => log.opened.push(Date.now()));
        this.addEventListener('notification', (event) => {
          const data = JSON.parse((event as MessageEvent<string>).data) as {
            title: string;
            createdAt: string;
          };
          log.notifications.push({ at: Date.now(), title: data.title, createdAt: data.createdAt });
        });
      }
    };
  });
  user = await createAccount(server.baseUrl, {
    firstName: 'Barbara',
    lastName: 'Liskov',
    username: 'bliskov',
    email: 'barbara@example.com',
    password: 'Clu#Language74',
  });
});

const bell = (name: string | RegExp) => page.getByRole('button', { name });
const badge = () => bell(/^Notifications/).locator('.MuiBadge-badge');
let unreadBefore: number;

describe('notifications in an open page', () => {
  it('shows the unread count (the welcome notification) once the stream is open', async () => {
    await openSignedIn(page, server.baseUrl, user.token);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const label = (await bell(/^Notifications, \d+ unread$/).getAttribute('aria-label')) ?? '';
    unreadBefore = Number(/(\d+) unread/.exec(label)?.[1]);
    expect(unreadBefore).toBe(1);
    expect(await badge().textContent()).toBe(String(unreadBefore));
    await page.waitForFunction(() => (window.__streamLog?.opened.length ?? 0) > 0);
  });

  it('a server-side notification reaches the page and updates the badge in under a second', async () => {
    const listLoads: number[] = [];
    const onRequest = (request: Request) => {
      if (new URL(request.url()).pathname === '/api/notifications') listLoads.push(Date.now());
    };
    page.on('request', onRequest);

    // When the bell shows the new count, timed in the page at every frame (the same clock as the stream
    // log): Playwright's polls from here, spaced out over a 40 s wait, would add their own delay.
    const expected = unreadBefore + 1;
    await page.evaluate((label) => {
      const tick = () => {
        if (document.querySelector(`button[aria-label="${label}"]`))
          Object.assign(window, { badgeAt: Date.now() });
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    }, `Notifications, ${expected} unread`);

    // Deploying a database: when its job has made it, the server creates an 'Instance ready' notification.
    const deployed = await api(server.baseUrl, 'POST', '/api/instances/deploy', {
      token: user.token,
      body: { name: 'Stream probe', type: 'MySQL' },
    });
    expect(deployed).toBeDefined();
    await bell(`Notifications, ${expected} unread`).waitFor({ timeout: 40_000 });
    const badgeAt = await page.evaluate(() => (window as unknown as { badgeAt: number }).badgeAt);
    page.off('request', onRequest);

    const log = await page.evaluate(() => window.__streamLog);
    const streamed = log?.notifications.find((n) => n.title === 'Instance ready');
    expect(streamed, 'the notification came through the EventSource').toBeDefined();
    // From the moment the server created it (same machine, same clock) to the page hearing it.
    const streamAfterMs = (streamed?.at ?? 0) - Date.parse(streamed?.createdAt ?? '');
    const badgeAfterMs = badgeAt - (streamed?.at ?? 0);
    console.info(
      `notification created → stream message ${streamAfterMs} ms → badge "${expected}" ${badgeAfterMs} ms`,
    );
    expect(streamAfterMs).toBeLessThan(1_000);
    expect(badgeAfterMs).toBeLessThan(1_000);
    expect(await badge().textContent()).toBe(String(expected));
    // The stream message made the bell reload its list (its own refresh comes only every 60 s).
    expect(listLoads.length).toBeGreaterThanOrEqual(1);
  });

  it('lists the new notification in the panel, unread, above the welcome', async () => {
    await bell(/^Notifications/).click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    const items = panel.getByRole('listitem');
    await items.first().waitFor();
    expect(await items.count()).toBe(2);
    await items.first().getByText('Instance ready').waitFor();
    await items
      .first()
      .getByText(/· Unread/)
      .waitFor();
    await items.nth(1).getByText('Welcome to Berth!').waitFor();
    expect(await panel.getByRole('button', { name: 'Mark all read' }).isEnabled()).toBe(true);
    await shot(page, 'notifications-panel');
  });
});
