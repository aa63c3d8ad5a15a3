import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordedRequest } from '../../../test/fake-api.ts';
import { expiredSubscription, instanceList, makeInstance, makeUser } from '../../../test/fixtures.ts';
import { renderInstances, serveInstances } from '../../../test/instances.ts';
import { LAYOUT_STORAGE_KEY } from './use-stored-layout.ts';

afterEach(() => {
  vi.useRealTimers();
});

const queryOf = (request: RecordedRequest | undefined) =>
  Object.fromEntries(new URLSearchParams(request?.search));

const many = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    makeInstance({ name: `Database ${String(i + 1).padStart(2, '0')}` }),
  );

const card = (name: string) => screen.findByRole('article', { name });

describe('instance list', () => {
  it('shows a card per instance: name, type badge, status, engine, region and created date', async () => {
    const orders = makeInstance({ name: 'Orders DB', region: 'eu-central-1' });
    const app = renderInstances({ 'GET /api/instances': { body: instanceList([orders]) } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Instances' })).toBeTruthy();
    const article = await card('Orders DB');
    expect(within(article).getByRole('link', { name: 'Orders DB' }).getAttribute('href')).toBe(
      `/instances/${orders.id}`,
    );
    expect(within(article).getByText('Database')).toBeTruthy();
    expect(within(article).getByText('Running')).toBeTruthy();
    expect(within(article).getByText('MySQL database')).toBeTruthy();
    expect(within(article).getByText(/^EU Central \(Frankfurt\) · Created /)).toBeTruthy();
    // Databases: Change Password and the credentials (eye) button instead of Manage; no Open without a URL.
    expect(within(article).getByRole('button', { name: 'Change password of Orders DB' })).toBeTruthy();
    expect(within(article).getByRole('button', { name: 'Credentials of Orders DB' })).toBeTruthy();
    expect(within(article).queryByRole('link', { name: /^Manage/ })).toBeNull();
    expect(within(article).queryByRole('button', { name: /^Open/ })).toBeNull();
    expect(screen.getByText('Showing 1 of 1')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Deploy New Instance' }).getAttribute('href')).toBe(
      '/instances/new',
    );
    expect(queryOf(app.api.calls('GET /api/instances')[0])).toEqual({ page: '1', limit: '24' });
  });

  it('gives an application Manage, Open and the custom domain block', async () => {
    const site = makeInstance({
      name: 'Blog',
      type: 'WordPress',
      product: 'wordpress',
      category: 'application',
      url: 'https://blog.example.berth.app',
      adminUrl: 'https://blog.example.berth.app/wp-admin',
      metadata: { database: false },
    });
    renderInstances({ 'GET /api/instances': { body: instanceList([site]) } });
    const article = await card('Blog');
    expect(within(article).getByText('WordPress')).toBeTruthy();
    expect(within(article).getByRole('link', { name: 'Manage Blog' }).getAttribute('href')).toBe(
      `/instances/${site.id}`,
    );
    expect(within(article).getByRole('button', { name: 'Open Blog' })).toBeTruthy();
    expect(within(article).getByRole('button', { name: 'Admin of Blog' })).toBeTruthy();
    expect(within(article).getByText('Temporary URL')).toBeTruthy();
    expect(within(article).getByText('No custom domain')).toBeTruthy();
    expect(within(article).getByText('Not configured')).toBeTruthy();
    expect(within(article).queryByRole('button', { name: /^Change password/ })).toBeNull();
  });

  it("says 'No instances found' and offers a first deploy; no filter bar nor search", async () => {
    renderInstances();
    expect(await screen.findByText('No instances found')).toBeTruthy();
    expect(screen.queryByRole('toolbar', { name: 'Filters' })).toBeNull();
    expect(screen.queryByPlaceholderText('Search instances by name...')).toBeNull();
    expect(screen.getAllByRole('link', { name: 'Deploy New Instance' })).toHaveLength(2);
  });

  it("toasts 'Failed to load instances'", async () => {
    renderInstances({ 'GET /api/instances': { status: 500, body: { error: 'internal', message: 'x' } } });
    expect(await screen.findByText('Failed to load instances', undefined, { timeout: 3000 })).toBeTruthy();
  });
});

describe('search', () => {
  it('appears only above 9 instances', async () => {
    const nine = renderInstances({ 'GET /api/instances': serveInstances(many(9)) });
    expect(await card('Database 09')).toBeTruthy();
    expect(screen.queryByPlaceholderText('Search instances by name...')).toBeNull();
    nine.unmount();

    renderInstances({ 'GET /api/instances': serveInstances(many(10)) });
    expect(await screen.findByPlaceholderText('Search instances by name...')).toBeTruthy();
  });

  it('sends the trimmed term once typing has paused, and keeps the box for a term with few results', async () => {
    const app = renderInstances({
      'GET /api/instances': serveInstances([...many(12), makeInstance({ name: 'Orders' })]),
    });
    const box = await screen.findByPlaceholderText('Search instances by name...');
    // Typed in one go (a pause between two calls on a busy machine could outlast the search's delay).
    await app.user.type(box, '  orders  ');
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Database 01' })).toBeNull());
    expect(await card('Orders')).toBeTruthy();
    const searched = app.api.calls('GET /api/instances').map((request) => queryOf(request).search);
    // One request for the whole term, none for what was typed on the way.
    expect(searched.filter(Boolean)).toEqual(['orders']);
    expect(screen.getByText('Showing 1 of 1')).toBeTruthy();
    expect(screen.getByPlaceholderText('Search instances by name...')).toBe(box);

    await app.user.clear(box);
    expect(await card('Database 01')).toBeTruthy();
  });
});

describe('filters', () => {
  const apps = [
    makeInstance({ name: 'Shop', type: 'WordPress', product: 'wordpress', category: 'application' }),
    makeInstance({ name: 'Flows', type: 'n8n', product: 'n8n', category: 'application' }),
    makeInstance({ name: 'Orders DB' }),
  ];

  async function pick(app: ReturnType<typeof renderInstances>, filter: string, option: string) {
    await app.user.click(screen.getByRole('combobox', { name: filter }));
    await app.user.click(await screen.findByRole('option', { name: option }));
  }

  it('filters by environment in the browser on up to 1000 instances, and clears', async () => {
    const app = renderInstances({ 'GET /api/instances': serveInstances(apps) });
    expect(await card('Shop')).toBeTruthy();
    expect(screen.getByText('Showing 3 of 3')).toBeTruthy();

    await pick(app, 'Environment', 'WP');
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Orders DB' })).toBeNull());
    expect(screen.getByRole('article', { name: 'Shop' })).toBeTruthy();
    expect(screen.queryByRole('article', { name: 'Flows' })).toBeNull();
    expect(screen.getByText('Showing 1 of 3')).toBeTruthy();
    expect(queryOf(app.api.calls('GET /api/instances').at(-1))).toEqual({ page: '1', limit: '1000' });

    await pick(app, 'Environment', 'n8n');
    expect(await card('Flows')).toBeTruthy();
    expect(screen.queryByRole('article', { name: 'Shop' })).toBeNull();

    await app.user.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(await card('Orders DB')).toBeTruthy();
    expect(screen.getByText('Showing 3 of 3')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Clear filters' })).toBeNull();
  });

  it("filters by domain: none has one yet, so 'Has domain' finds nothing", async () => {
    const app = renderInstances({ 'GET /api/instances': serveInstances(apps) });
    expect(await card('Shop')).toBeTruthy();
    await pick(app, 'Domain', 'Has domain');
    expect(await screen.findByText('No instances found')).toBeTruthy();
    expect(screen.getByText('Showing 0 of 3')).toBeTruthy();
    await pick(app, 'Domain', 'No domain');
    expect(await card('Orders DB')).toBeTruthy();
    expect(screen.getByText('Showing 3 of 3')).toBeTruthy();
  });
});

describe('List/Grid', () => {
  it('starts as a grid and remembers the choice in this browser', async () => {
    const first = renderInstances({ 'GET /api/instances': serveInstances(many(2)) });
    await card('Database 01');
    expect(screen.getByRole('button', { name: 'Grid' }).getAttribute('aria-pressed')).toBe('true');
    await first.user.click(screen.getByRole('button', { name: 'List' }));
    expect(screen.getByRole('button', { name: 'List' }).getAttribute('aria-pressed')).toBe('true');
    expect(localStorage.getItem(LAYOUT_STORAGE_KEY)).toBe('list');
    first.unmount();

    renderInstances({ 'GET /api/instances': serveInstances(many(2)) });
    await card('Database 01');
    expect(screen.getByRole('button', { name: 'List' }).getAttribute('aria-pressed')).toBe('true');
  });
});

describe('pagination', () => {
  it('pages by 24: Showing a–b of n, Previous, Page x of y, Next', async () => {
    const app = renderInstances({ 'GET /api/instances': serveInstances(many(30)) });
    await card('Database 01');
    const nav = screen.getByRole('navigation', { name: 'Pagination' });
    expect(within(nav).getByText('Showing 1–24 of 30')).toBeTruthy();
    expect(within(nav).getByText('Page 1 of 2')).toBeTruthy();
    expect(within(nav).getByRole('button', { name: 'Previous' })).toHaveProperty('disabled', true);

    await app.user.click(within(nav).getByRole('button', { name: 'Next' }));
    expect(await card('Database 25')).toBeTruthy();
    expect(within(nav).getByText('Showing 25–30 of 30')).toBeTruthy();
    expect(within(nav).getByText('Page 2 of 2')).toBeTruthy();
    expect(within(nav).getByRole('button', { name: 'Next' })).toHaveProperty('disabled', true);
    expect(queryOf(app.api.calls('GET /api/instances').at(-1))).toEqual({ page: '2', limit: '24' });

    await app.user.click(within(nav).getByRole('button', { name: 'Previous' }));
    expect(await card('Database 01')).toBeTruthy();
  });

  it('shows no pagination for a single page', async () => {
    renderInstances({ 'GET /api/instances': serveInstances(many(3)) });
    await card('Database 01');
    expect(screen.queryByRole('navigation', { name: 'Pagination' })).toBeNull();
  });
});

describe('inactive subscription', () => {
  it("shows the red banner with 'View plans' and disables the changing actions", async () => {
    const orders = makeInstance({ name: 'Orders DB', status: 'suspended', suspended: true });
    const db = makeInstance({ name: 'Analytics', suspended: true });
    renderInstances(
      { 'GET /api/instances': { body: instanceList([orders, db]) } },
      makeUser({ subscription: expiredSubscription() }),
    );
    const banner = (await screen.findByText('Subscription inactive — instances suspended')).closest(
      '.MuiAlert-root',
    ) as HTMLElement;
    expect(within(banner).getByRole('link', { name: 'View plans' }).getAttribute('href')).toBe('/pricing');

    const article = await card('Orders DB');
    expect(within(article).getByText('Suspended')).toBeTruthy();
    expect(within(article).getByRole('button', { name: 'Delete Orders DB' })).toHaveProperty(
      'disabled',
      true,
    );
    expect(within(article).getByRole('button', { name: 'Change password of Orders DB' })).toHaveProperty(
      'disabled',
      true,
    );
    // The credentials stay readable.
    expect(within(article).getByRole('button', { name: 'Credentials of Orders DB' })).toHaveProperty(
      'disabled',
      false,
    );
    // A running one of an inactive user gets the Suspended badge beside its status.
    const other = await card('Analytics');
    expect(within(other).getByText('Running')).toBeTruthy();
    expect(within(other).getByText('Suspended')).toBeTruthy();
  });

  it('has no banner while the trial runs', async () => {
    renderInstances({ 'GET /api/instances': serveInstances(many(1)) });
    await card('Database 01');
    expect(screen.queryByText('Subscription inactive — instances suspended')).toBeNull();
  });
});

describe('live status', () => {
  it('follows `event: instance` from deploying to running, then removes a deleted one', async () => {
    const orders = makeInstance({ name: 'Orders DB', status: 'deploying' });
    const app = renderInstances({ 'GET /api/instances': { body: instanceList([orders]) } });
    const article = await card('Orders DB');
    expect(within(article).getByText('Deploying')).toBeTruthy();
    expect(within(article).getByRole('button', { name: 'Change password of Orders DB' })).toHaveProperty(
      'disabled',
      true,
    );
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    // The reload that follows each event stays unanswered: what changes comes from the event itself.
    app.api.on({ 'GET /api/instances': () => new Promise(() => {}) });

    app.streams
      .latest()
      ?.emit('instance', JSON.stringify({ id: orders.id, status: 'running', statusMessage: null }));
    expect(await within(article).findByText('Running')).toBeTruthy();
    expect(within(article).getByRole('button', { name: 'Change password of Orders DB' })).toHaveProperty(
      'disabled',
      false,
    );

    app.streams
      .latest()
      ?.emit('instance', JSON.stringify({ id: orders.id, status: 'deleted', statusMessage: null }));
    expect(await screen.findByText('No instances found')).toBeTruthy();
  });

  it('shows the reason of an instance in error', async () => {
    const orders = makeInstance({ name: 'Orders DB', status: 'deploying' });
    const app = renderInstances({ 'GET /api/instances': { body: instanceList([orders]) } });
    const article = await card('Orders DB');
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    app.api.on({
      'GET /api/instances': {
        body: instanceList([
          { ...orders, status: 'error', statusMessage: 'The MySQL server is not running' },
        ]),
      },
    });
    app.streams
      .latest()
      ?.emit(
        'instance',
        JSON.stringify({ id: orders.id, status: 'error', statusMessage: 'The MySQL server is not running' }),
      );
    expect(await within(article).findByText('Error')).toBeTruthy();
    expect(await within(article).findByText('The MySQL server is not running')).toBeTruthy();
  });

  it('reloads the instances after a resync', async () => {
    const app = renderInstances({ 'GET /api/instances': serveInstances(many(1)) });
    await card('Database 01');
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    const before = app.api.calls('GET /api/instances').length;
    app.streams.latest()?.emit('resync');
    await waitFor(() => expect(app.api.calls('GET /api/instances').length).toBeGreaterThan(before));
  });
});
