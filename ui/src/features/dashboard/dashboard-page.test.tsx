import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import {
  capabilities,
  databaseAccess,
  expiredSubscription,
  instanceList,
  makeInstance,
  makeUser,
  proSubscription,
  signedInApi,
  subscriptionStatus,
  trialSubscription,
} from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

afterEach(() => {
  vi.restoreAllMocks();
});

function renderDashboard(user = makeUser(), api: FakeRoutes = {}) {
  return renderApp({ path: '/dashboard', token: 'stored', api: { ...signedInApi(user), ...api } });
}

const card = () => screen.findByRole('region', { name: /Free|Pro|Starter/ });
const fact = (region: HTMLElement, label: string) => within(region).getByText(label).nextSibling?.textContent;

describe('DashboardPage', () => {
  it('welcomes the user by name', async () => {
    renderDashboard(makeUser({ firstName: 'Grace' }));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeTruthy();
    expect(screen.getByText('Welcome back, Grace!')).toBeTruthy();
  });

  it('shows a running trial: badge, end, allowance and remaining time', async () => {
    renderDashboard(makeUser({ subscription: trialSubscription(42) }));
    const region = await card();
    expect(within(region).getByText('Trial')).toBeTruthy();
    expect(within(region).getByText(/^Trial active — ends /)).toBeTruthy();
    expect(fact(region, 'Instance allowance')).toBe('1');
    expect(fact(region, 'Trial time remaining')).toBe('0h 42m');
    expect(within(region).queryByText('Trial ending soon!')).toBeNull();
  });

  it("warns 'Trial ending soon!' with 5 minutes or less left", async () => {
    renderDashboard(makeUser({ subscription: trialSubscription(3) }));
    const region = await card();
    expect(within(region).getByText('Trial ending soon!')).toBeTruthy();
    expect(fact(region, 'Trial time remaining')).toBe('0h 3m');
  });

  it('shows an expired subscription in red', async () => {
    renderDashboard(makeUser({ subscription: expiredSubscription() }));
    const region = await card();
    const badge = within(region).getByText('Expired');
    expect(badge.closest('.MuiChip-root')?.className).toContain('MuiChip-colorError');
    expect(within(region).getByText('Trial expired — no active subscription')).toBeTruthy();
    expect(within(region).queryByText('Trial time remaining')).toBeNull();
  });

  it('shows an active plan with its label and unlimited allowance', async () => {
    renderDashboard(makeUser({ subscription: proSubscription() }));
    const region = await card();
    expect(within(region).getByText('Active')).toBeTruthy();
    expect(within(region).getByRole('heading', { name: 'Pro' })).toBeTruthy();
    expect(fact(region, 'Instance allowance')).toBe('Unlimited');
    expect(within(region).getByText('Next billing date')).toBeTruthy();
  });

  it('prefers the fresh subscription status over the profile', async () => {
    renderDashboard(makeUser({ subscription: trialSubscription(42) }), {
      'GET /api/subscriptions/status': { body: subscriptionStatus(proSubscription()) },
    });
    expect(await screen.findByText('Active')).toBeTruthy();
  });

  it("toasts 'Failed to load subscription status' and keeps the profile's data", async () => {
    renderDashboard(makeUser({ subscription: trialSubscription(42) }), {
      'GET /api/subscriptions/status': { status: 403, body: { error: 'forbidden', message: 'nope' } },
    });
    expect(await screen.findByText('Failed to load subscription status')).toBeTruthy();
    expect(within(await card()).getByText('Trial')).toBeTruthy();
  });
});

describe('plan buttons', () => {
  it.each([
    ['a trial', trialSubscription(42), ['View All Plans']],
    [
      'Starter',
      proSubscription({
        plan: 'starter',
        planDetails: { id: 'starter', name: 'Starter', price: 3.99 },
        maxInstances: 1,
      }),
      ['Upgrade to Pro', 'View All Plans'],
    ],
    ['Pro', proSubscription(), ['View All Plans']],
    ['an expired subscription', expiredSubscription(), ['Renew Subscription', 'View All Plans']],
  ])('%s: its plan buttons, all to /pricing', async (_name, subscription, buttons) => {
    renderDashboard(makeUser({ subscription }));
    const region = await card();
    const links = within(region).getAllByRole('link');
    expect(links.map((link) => link.textContent)).toEqual(buttons);
    for (const link of links) expect(link.getAttribute('href')).toBe('/pricing');
  });
});

describe('Current Instance', () => {
  const panel = () => screen.findByRole('region', { name: 'Current Instance' });
  const details = () => screen.findByRole('region', { name: 'Connection Details' });
  const value = (region: HTMLElement, label: string) =>
    within(region).getByText(label).nextSibling?.textContent;
  const orders = makeInstance({ name: 'Orders DB', region: 'eu-west-1' });
  const ACCESS = `GET /api/instances/${orders.id}/access`;

  it('offers a first deploy when there is no instance', async () => {
    const app = renderDashboard();
    const region = await panel();
    expect(await within(region).findByText('No instances yet')).toBeTruthy();
    expect(within(region).getByRole('link', { name: 'Deploy New Instance' }).getAttribute('href')).toBe(
      '/instances/new',
    );
    expect(within(region).getByRole('button', { name: 'Quick Deploy' })).toBeTruthy();
    expect(Object.fromEntries(new URLSearchParams(app.api.calls('GET /api/instances')[0]?.search))).toEqual({
      page: '1',
      limit: '3',
    });
  });

  it('shows the first instance with the connection details of its database', async () => {
    const write = vi.spyOn(navigator.clipboard, 'writeText');
    const app = renderDashboard(makeUser(), {
      'GET /api/instances': { body: instanceList([orders, makeInstance()]) },
      [ACCESS]: { body: databaseAccess({ port: 3307 }) },
    });
    const region = await panel();
    expect(await within(region).findByText('Orders DB')).toBeTruthy();
    expect(within(region).getByText('Running')).toBeTruthy();
    expect(within(region).getByText('Database', { selector: '.MuiChip-label' })).toBeTruthy();
    expect(value(region, 'Type')).toBe('MySQL');
    expect(value(region, 'Region')).toBe('EU West (Ireland)');

    const connection = await details();
    await waitFor(() => expect(value(connection, 'Host')).toBe('127.0.0.1'));
    expect(value(connection, 'Port')).toBe('3307');
    expect(value(connection, 'Database')).toBe('t_orders');
    expect(value(connection, 'Username')).toBe('u_orders');
    expect(value(connection, 'Password')).not.toContain('S3cret');
    await app.user.click(within(connection).getByRole('button', { name: 'Show password' }));
    expect(value(connection, 'Password')).toBe('S3cret-Pass_word');
    await app.user.click(within(connection).getByRole('button', { name: 'Hide password' }));
    expect(value(connection, 'Password')).not.toContain('S3cret');
    await app.user.click(within(connection).getByRole('button', { name: 'Copy password' }));
    expect(await screen.findByText('Password copied to clipboard')).toBeTruthy();
    expect(write).toHaveBeenCalledWith('S3cret-Pass_word');

    // Databases: View All, but no Manage and no Open (no URL); no custom-domain form.
    expect(within(region).getByRole('link', { name: 'View All' }).getAttribute('href')).toBe('/instances');
    expect(within(region).queryByRole('link', { name: 'Manage' })).toBeNull();
    expect(within(region).queryByRole('button', { name: 'Open' })).toBeNull();
    expect(screen.queryByText(/Custom Domain/i)).toBeNull();
  });

  it("says 'Not available' until the database runs, then loads the details live", async () => {
    const deploying = { ...orders, status: 'deploying' as const };
    const app = renderDashboard(makeUser(), {
      'GET /api/instances': { body: instanceList([deploying]) },
      [ACCESS]: { body: databaseAccess() },
    });
    const connection = await details();
    expect(within(connection).getAllByText('Not available')).toHaveLength(5);
    expect(app.api.calls(ACCESS)).toHaveLength(0);
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));

    app.api.on({ 'GET /api/instances': { body: instanceList([orders]) } });
    app.streams
      .latest()
      ?.emit('instance', JSON.stringify({ id: orders.id, status: 'running', statusMessage: null }));
    await waitFor(() => expect(value(connection, 'Host')).toBe('127.0.0.1'));
    expect(within(connection).queryByText('Not available')).toBeNull();
  });

  it("toasts 'Failed to load database credentials'", async () => {
    renderDashboard(makeUser(), {
      'GET /api/instances': { body: instanceList([orders]) },
      [ACCESS]: { status: 409, body: { error: 'conflict', message: 'No credentials' } },
    });
    expect(await screen.findByText('Failed to load database credentials')).toBeTruthy();
  });

  it('gives an application Open and Manage', async () => {
    const site = makeInstance({
      name: 'Blog',
      type: 'WordPress',
      product: 'wordpress',
      category: 'application',
      url: 'https://blog.example.berth.app',
      metadata: { database: false },
    });
    renderDashboard(makeUser(), { 'GET /api/instances': { body: instanceList([site]) } });
    const region = await panel();
    expect(await within(region).findByText('Blog')).toBeTruthy();
    expect(within(region).getByRole('button', { name: 'Open' })).toBeTruthy();
    expect(within(region).getByRole('link', { name: 'Manage' }).getAttribute('href')).toBe(
      `/instances/${site.id}`,
    );
    expect(value(region, 'URL')).toBe('https://blog.example.berth.app');
    expect(screen.queryByRole('region', { name: 'Connection Details' })).toBeNull();
  });
});

describe('Quick Actions', () => {
  it('leads to the screens that exist', async () => {
    renderDashboard();
    const nav = await screen.findByRole('navigation', { name: 'Quick actions' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((link) => `${link.querySelector('p')?.textContent} ${link.getAttribute('href')}`),
    ).toEqual([
      'Instances /instances',
      'Deploy New Instance /instances/new',
      'Billing /billing',
      'API Access /api-access',
      'Get Help /get-help',
      'Profile /profile',
    ]);
  });
});

describe('deploy modal', () => {
  async function openModal(app: ReturnType<typeof renderDashboard>) {
    await app.user.click(await screen.findByRole('button', { name: 'Quick Deploy' }));
    return screen.findByRole('dialog', { name: 'Deploy Instance' });
  }

  it("deploys a MySQL database named 'My Instance' in one of six regions", async () => {
    const created = makeInstance({ name: 'My Instance', status: 'deploying' });
    const app = renderDashboard(makeUser(), {
      'POST /api/instances/deploy': {
        status: 202,
        body: { instance: created, message: 'Instance deployment initiated' },
      },
    });
    const dialog = await openModal(app);
    expect(await within(dialog).findByText(/creates a MySQL database/)).toBeTruthy();
    expect(within(dialog).getByLabelText(/Instance Name/)).toHaveProperty('value', 'My Instance');
    await app.user.click(within(dialog).getByRole('combobox', { name: 'Region' }));
    const options = await screen.findAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual([
      'US East (N. Virginia) (us-east-1)',
      'US West (Oregon) (us-west-2)',
      'EU West (Ireland) (eu-west-1)',
      'EU Central (Frankfurt) (eu-central-1)',
      'AP South (Mumbai) (ap-south-1)',
      'Singapore (ap-southeast-1)',
    ]);
    expect(options[0]?.getAttribute('aria-selected')).toBe('true');
    await app.user.click(screen.getByRole('option', { name: 'Singapore (ap-southeast-1)' }));

    app.api.on({ 'GET /api/instances': { body: instanceList([created]) } });
    await app.user.click(within(dialog).getByRole('button', { name: 'Deploy' }));
    expect(await screen.findByText('Instance deployment initiated')).toBeTruthy();
    expect(app.api.calls('POST /api/instances/deploy')[0]?.body).toEqual({
      name: 'My Instance',
      region: 'ap-southeast-1',
      type: 'MySQL',
      memory: '4GB',
      cpu: '2',
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Deploy Instance' })).toBeNull());
    expect(
      await within(await screen.findByRole('region', { name: 'Current Instance' })).findByText('Deploying'),
    ).toBeTruthy();
  });

  it('takes PostgreSQL when MySQL cannot be deployed here', async () => {
    const app = renderDashboard(makeUser(), {
      'GET /api/instances/capabilities': {
        body: capabilities({ mysql: 'The MariaDB server is not running' }),
      },
      'POST /api/instances/deploy': { status: 202, body: { instance: makeInstance(), message: 'ok' } },
    });
    const dialog = await openModal(app);
    expect(await within(dialog).findByText(/creates a PostgreSQL database/)).toBeTruthy();
    await app.user.click(within(dialog).getByRole('button', { name: 'Deploy' }));
    await waitFor(() => expect(app.api.calls('POST /api/instances/deploy')).toHaveLength(1));
    expect(app.api.calls('POST /api/instances/deploy')[0]?.body).toMatchObject({ type: 'PostgreSQL' });
  });

  it('disables Deploy when the user cannot create an instance, and Cancel closes', async () => {
    const app = renderDashboard(makeUser(), {
      'GET /api/subscriptions/can-create-instance': {
        body: { canCreate: false, reason: 'Your plan allows 1 instance. Upgrade to Pro for more.' },
      },
    });
    const dialog = await openModal(app);
    expect(
      await within(dialog).findByText('Your plan allows 1 instance. Upgrade to Pro for more.'),
    ).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: 'Deploy' })).toHaveProperty('disabled', true);
    await app.user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Deploy Instance' })).toBeNull());
  });

  it("requires a name: 'Instance name is required'", async () => {
    const app = renderDashboard();
    const dialog = await openModal(app);
    await app.user.clear(within(dialog).getByLabelText(/Instance Name/));
    await app.user.click(within(dialog).getByRole('button', { name: 'Deploy' }));
    expect(await within(dialog).findByText('Instance name is required')).toBeTruthy();
    expect(app.api.calls('POST /api/instances/deploy')).toHaveLength(0);
  });

  it('shows the message of a 403', async () => {
    const app = renderDashboard(makeUser(), {
      'POST /api/instances/deploy': {
        status: 403,
        body: {
          error: 'plan_limit',
          message: 'Cannot create instance. Please check your subscription status.',
        },
      },
    });
    const dialog = await openModal(app);
    await within(dialog).findByText(/creates a MySQL database/);
    await app.user.click(within(dialog).getByRole('button', { name: 'Deploy' }));
    expect(
      await screen.findByText('Cannot create instance. Please check your subscription status.'),
    ).toBeTruthy();
  });
});
