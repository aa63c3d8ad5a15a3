import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, capabilities, makeInstance, makeUser } from '../../../test/fixtures.ts';
import { renderInstances } from '../../../test/instances.ts';

function renderNew(api: FakeRoutes = {}) {
  return renderInstances(api, makeUser(), '/instances/new');
}

const deployed = makeInstance({ name: 'Orders DB', status: 'deploying' });
const ACCEPTED = { status: 202, body: { instance: deployed, message: 'Instance deployment initiated' } };

const radio = (name: string) => screen.findByRole('radio', { name });

async function choose(app: ReturnType<typeof renderNew>, name: string) {
  await app.user.click(await radio(name));
  return screen.findByRole('region', { name: `Configure your ${name} instance` });
}

const deployButton = () => screen.getByRole('button', { name: 'Deploy Instance' });

describe('Deploy New Instance', () => {
  it('opens on Databases when no application can be deployed here, with Back to Instances', async () => {
    renderNew();
    expect(await screen.findByRole('heading', { level: 1, name: 'Deploy New Instance' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Instances' }).getAttribute('href')).toBe('/instances');
    expect(await radio('MySQL')).toHaveProperty('disabled', false);
    expect(screen.getByRole('button', { name: 'Databases' }).getAttribute('aria-pressed')).toBe('true');
    expect(await radio('PostgreSQL')).toHaveProperty('disabled', false);
  });

  it('shows unavailable types disabled with the reason the server gives, and the announced ones as Soon', async () => {
    const app = renderNew();
    const mongo = await radio('MongoDB');
    expect(mongo).toHaveProperty('disabled', true);
    expect(mongo.getAttribute('aria-describedby')).toContain('choice-mongodb-reason');
    expect(screen.getByText('MongoDB is not offered on this server')).toBeTruthy();

    await app.user.click(screen.getByRole('button', { name: 'Applications' }));
    for (const name of ['WordPress', 'n8n', 'Node-RED', 'Nextcloud'])
      expect(await radio(name)).toHaveProperty('disabled', true);
    expect(screen.getAllByText('Coming soon')).toHaveLength(2);
    expect(screen.getAllByText('Soon')).toHaveLength(2);
  });

  it('tells a customer when n8n will be ready while this server sets it up, in the server’s words', async () => {
    const settingUp = 'n8n is being set up on this server; it will be ready in about 5 minutes';
    const app = renderNew({
      'GET /api/instances/capabilities': { body: capabilities({ n8n: settingUp }) },
    });
    await radio('MySQL');
    await app.user.click(screen.getByRole('button', { name: 'Applications' }));
    const n8n = await radio('n8n');
    expect(n8n).toHaveProperty('disabled', true);
    expect(
      document.getElementById(n8n.getAttribute('aria-describedby')?.split(' ').at(-1) ?? '')?.textContent,
    ).toBe(settingUp);
  });

  it('offers n8n where the server does, asking for the owner account by n8n’s rules', {
    timeout: 20_000,
  }, async () => {
    const app = renderNew({ 'GET /api/instances/capabilities': { body: capabilities({ n8n: null }) } });
    // An application can be deployed: the page opens on Applications.
    const n8n = await screen.findByRole('radio', { name: 'n8n' }, { timeout: 5000 });
    expect(screen.getByRole('button', { name: 'Applications' }).getAttribute('aria-pressed')).toBe('true');
    expect(n8n).toHaveProperty('disabled', false);
    await app.user.click(n8n);
    await app.user.type(screen.getByLabelText(/Instance Name/), 'Flows');
    await app.user.type(screen.getByLabelText(/Owner Email/), 'ann@example.com');
    await app.user.type(screen.getByLabelText(/Owner Password/), 'lowercase1');
    await app.user.click(deployButton());
    expect(
      await screen.findAllByText(
        'The n8n owner password must be 8 to 64 characters with at least one number and one capital letter',
      ),
    ).toBeTruthy();
  });

  it("asks for a choice: 'Please select a database'", async () => {
    const app = renderNew();
    await radio('MySQL');
    await app.user.click(deployButton());
    expect(await screen.findByText('Please select a database')).toBeTruthy();
    await app.user.click(screen.getByRole('button', { name: 'Applications' }));
    expect(await screen.findByText('Please select an application')).toBeTruthy();
    expect(app.api.calls('POST /api/instances/deploy')).toHaveLength(0);
  });

  it.each([
    ['', '', 'Instance name is required'],
    ['   ', '', 'Name is required'],
    ['x'.repeat(101), '', 'Name too long'],
    ['Orders DB', 'd'.repeat(501), 'Description too long'],
  ])('name %j, description %j: %s', async (name, description, message) => {
    const app = renderNew();
    const form = await choose(app, 'MySQL');
    if (name) {
      await app.user.click(within(form).getByLabelText(/Instance Name/));
      await app.user.paste(name);
    }
    if (description) {
      await app.user.click(within(form).getByLabelText('Description (optional)'));
      await app.user.paste(description);
    }
    await app.user.click(deployButton());
    expect(await within(form).findByText(message)).toBeTruthy();
    expect(app.api.calls('POST /api/instances/deploy')).toHaveLength(0);
  });

  it("sends the deploy payload, says 'Instance deployment initiated' and goes to /instances", async () => {
    const app = renderNew({ 'POST /api/instances/deploy': ACCEPTED });
    const form = await choose(app, 'MySQL');
    expect(within(form).getByText(/Your database is ready within a minute/)).toBeTruthy();
    await app.user.type(within(form).getByLabelText(/Instance Name/), '  Orders DB ');
    await app.user.type(within(form).getByLabelText('Description (optional)'), 'Order history');
    const region = within(form).getByRole('group', { name: 'Region' });
    expect(within(region).getAllByRole('button')).toHaveLength(13);
    expect(
      within(region)
        .getByRole('button', { name: /US East \(N\. Virginia\)/ })
        .getAttribute('aria-pressed'),
    ).toBe('true');
    await app.user.click(within(region).getByRole('button', { name: /EU Central \(Frankfurt\)/ }));
    await app.user.click(deployButton());

    expect(await screen.findByText('Instance deployment initiated')).toBeTruthy();
    await waitFor(() => expect(app.location()).toBe('/instances'));
    expect(app.api.calls('POST /api/instances/deploy')[0]?.body).toEqual({
      name: 'Orders DB',
      description: 'Order history',
      region: 'eu-central-1',
      type: 'MySQL',
      memory: '4GB',
      cpu: '2',
    });
  });

  it('offers only the regions the server places instances in, says why, and starts on one it does', async () => {
    const reason = 'This server runs instances in EU West (Ireland) only';
    const app = renderNew({
      'GET /api/instances/capabilities': { body: capabilities({}, { only: 'eu-west-1', reason }) },
      'POST /api/instances/deploy': ACCEPTED,
    });
    const form = await choose(app, 'MySQL');
    const region = within(form).getByRole('group', { name: 'Region' });
    const ireland = within(region).getByRole('button', { name: /EU West \(Ireland\)/ });
    await waitFor(() => expect(ireland.getAttribute('aria-pressed')).toBe('true'));
    expect(within(region).getByRole('button', { name: /US East \(N\. Virginia\)/ })).toHaveProperty(
      'disabled',
      true,
    );
    expect(within(form).getByText(reason)).toBeTruthy();
    await app.user.type(within(form).getByLabelText(/Instance Name/), 'Orders DB');
    await app.user.click(deployButton());
    await waitFor(() =>
      expect(app.api.calls('POST /api/instances/deploy')[0]?.body).toMatchObject({ region: 'eu-west-1' }),
    );
  });

  it("shows 'Deploying...' while the request runs", async () => {
    const app = renderNew({ 'POST /api/instances/deploy': () => new Promise(() => {}) });
    const form = await choose(app, 'PostgreSQL');
    await app.user.type(within(form).getByLabelText(/Instance Name/), 'Reports');
    await app.user.click(deployButton());
    expect(await screen.findByRole('button', { name: 'Deploying...' })).toBeTruthy();
  });

  it('on 403 refreshes the subscription and shows the server message', async () => {
    const app = renderNew({
      'POST /api/instances/deploy': {
        status: 403,
        body: apiError('Cannot create instance. Please check your subscription status.', 'plan_limit'),
      },
    });
    const form = await choose(app, 'MySQL');
    await app.user.type(within(form).getByLabelText(/Instance Name/), 'Second');
    const profileCalls = app.api.calls('GET /api/auth/profile').length;
    const canCreateCalls = app.api.calls('GET /api/subscriptions/can-create-instance').length;
    app.api.on({
      'GET /api/subscriptions/can-create-instance': {
        body: { canCreate: false, reason: 'Your plan allows 1 instance. Upgrade to Pro for more.' },
      },
    });
    await app.user.click(deployButton());

    expect(
      await screen.findByText('Cannot create instance. Please check your subscription status.'),
    ).toBeTruthy();
    await waitFor(() => expect(app.api.calls('GET /api/auth/profile').length).toBeGreaterThan(profileCalls));
    expect(app.api.calls('GET /api/subscriptions/can-create-instance').length).toBeGreaterThan(
      canCreateCalls,
    );
    expect(await screen.findByText('Your plan allows 1 instance. Upgrade to Pro for more.')).toBeTruthy();
    expect(app.location()).toBe('/instances/new');
  });

  it('says why when the plan allows no more instances, and sends nothing', async () => {
    const app = renderNew({
      'GET /api/subscriptions/can-create-instance': {
        body: { canCreate: false, reason: 'Your plan allows 1 instance. Upgrade to Pro for more.' },
      },
    });
    expect(await screen.findByText('Your plan allows 1 instance. Upgrade to Pro for more.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'View plans' }).getAttribute('href')).toBe('/pricing');
    const form = await choose(app, 'MySQL');
    await app.user.type(within(form).getByLabelText(/Instance Name/), 'Second');
    await app.user.click(deployButton());
    expect(
      await screen.findByText('Cannot create instance. Please check your subscription status.'),
    ).toBeTruthy();
    expect(app.api.calls('POST /api/instances/deploy')).toHaveLength(0);
  });

  it("shows the server's field message", async () => {
    const app = renderNew({
      'POST /api/instances/deploy': {
        status: 400,
        body: apiError('Name too long', 'validation_error', { fieldErrors: { name: ['Name too long'] } }),
      },
    });
    const form = await choose(app, 'MySQL');
    await app.user.type(within(form).getByLabelText(/Instance Name/), 'Orders');
    await app.user.click(deployButton());
    expect(await within(form).findByText('Name too long')).toBeTruthy();
  });
});
