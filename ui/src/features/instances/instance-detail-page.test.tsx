import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import {
  apiError,
  databaseAccess,
  expiredSubscription,
  makeInstance,
  makeUser,
} from '../../../test/fixtures.ts';
import { renderInstances } from '../../../test/instances.ts';
import type { Instance } from '../../api/instances.queries.ts';

const orders = makeInstance({
  name: 'Orders DB',
  description: 'Order history',
  region: 'eu-central-1',
  deploymentConfig: { region: 'eu-central-1', memory: '4GB', cpu: '2' },
});
const GET = `GET /api/instances/${orders.id}`;
const ACCESS = `GET /api/instances/${orders.id}/access`;

function renderDetail(instance: Instance = orders, api: FakeRoutes = {}, user = makeUser()) {
  return renderInstances(
    {
      [`GET /api/instances/${instance.id}`]: { body: { instance } },
      [`GET /api/instances/${instance.id}/access`]: { body: databaseAccess() },
      ...api,
    },
    user,
    `/instances/${instance.id}`,
  );
}

const h1 = (name: string) => screen.findByRole('heading', { level: 1, name });
const tile = (label: string) =>
  within(screen.getByRole('group', { name: label })).getByText(label).nextSibling?.textContent;
const row = (region: HTMLElement, label: string) => within(region).getByText(label).nextSibling?.textContent;

describe('instance detail, databases', () => {
  it('shows the header, the tiles and the side cards', async () => {
    renderDetail();
    expect(await h1('Orders DB')).toBeTruthy();
    expect(screen.getByText('Order history', { selector: 'p' })).toBeTruthy();
    expect(screen.getAllByText('Running').length).toBeGreaterThan(0);
    expect(screen.getByText('Database')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Instances' }).getAttribute('href')).toBe('/instances');

    await waitFor(() => expect(tile('Connection')).toBe('127.0.0.1:3306'));
    expect(tile('Region')).toBe('EU Central (Frankfurt)');
    expect(tile('Memory')).toBe('4GB');
    expect(tile('CPU')).toBe('2 vCPU');

    const information = screen.getByRole('region', { name: 'Instance Information' });
    expect(row(information, 'Status')).toBe('Running');
    expect(row(information, 'URL')).toBe('None (database)');
    expect(row(information, 'Created')).toMatch(/2026/);
    const configuration = screen.getByRole('region', { name: 'Configuration' });
    expect(row(configuration, 'Region')).toBe('EU Central (Frankfurt) (eu-central-1)');
    expect(row(configuration, 'vCPU')).toBe('2');

    // Databases: no Open Instance (no URL), no Admin, no Manage Domain.
    expect(screen.queryByRole('button', { name: 'Open Instance' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Admin' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Manage Domain/ })).toBeNull();
    expect(screen.getByRole('button', { name: 'View Credentials' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Delete Instance' })).toHaveProperty('disabled', false);
    // Without phpMyAdmin (a database on a shared server), no button for it.
    expect(screen.queryByRole('button', { name: 'phpMyAdmin' })).toBeNull();
  });

  it("opens the instance's own phpMyAdmin from the header when it has one", async () => {
    const phpmyadmin = 'http://pma-3f2a1b4c5d6e.sites.example.com/';
    const app = renderDetail(orders, { [ACCESS]: { body: databaseAccess({ phpmyadmin }) } });
    expect(await h1('Orders DB')).toBeTruthy();
    await app.user.click(await screen.findByRole('button', { name: 'phpMyAdmin' }));
    expect(app.externalUrls).toEqual([phpmyadmin]);
  });

  it("says 'Instance not found' for an unknown id", async () => {
    const app = renderInstances({}, makeUser(), '/instances/8c7f2a55-0000-4000-8000-000000000000');
    expect(await h1('Instance not found')).toBeTruthy();
    expect(app.location()).toBe('/instances/8c7f2a55-0000-4000-8000-000000000000');
  });

  it("toasts 'Failed to load instance details' on any other failure and goes to /instances", async () => {
    const app = renderDetail(orders, { [GET]: { status: 500, body: apiError('Down', 'internal_error') } });
    expect(
      await screen.findByText('Failed to load instance details', undefined, { timeout: 3000 }),
    ).toBeTruthy();
    await waitFor(() => expect(app.location()).toBe('/instances'));
  });

  it('follows the live stream', async () => {
    const deploying = { ...orders, status: 'deploying' as const };
    const app = renderDetail(deploying);
    expect(await h1('Orders DB')).toBeTruthy();
    expect(screen.getByText(/^Deploying… This page updates by itself/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Change Password' })).toHaveProperty('disabled', true);
    expect(tile('Connection')).toBe('Database Instance');
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));

    app.api.on({ [GET]: { body: { instance: orders } } });
    app.streams
      .latest()
      ?.emit('instance', JSON.stringify({ id: orders.id, status: 'running', statusMessage: null }));
    await waitFor(() => expect(screen.queryByText(/^Deploying…/)).toBeNull());
    expect(screen.getByRole('button', { name: 'Change Password' })).toHaveProperty('disabled', false);
    await waitFor(() => expect(tile('Connection')).toBe('127.0.0.1:3306'));
  });

  it('shows an instance deleted elsewhere as not found', async () => {
    const app = renderDetail();
    expect(await h1('Orders DB')).toBeTruthy();
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    app.api.on({ [GET]: { status: 404, body: apiError('Instance not found', 'not_found') } });
    app.streams
      .latest()
      ?.emit('instance', JSON.stringify({ id: orders.id, status: 'deleted', statusMessage: null }));
    expect(await h1('Instance not found')).toBeTruthy();
  });

  it('disables Delete Instance and Change Password while the subscription is inactive', async () => {
    renderDetail(orders, {}, makeUser({ subscription: expiredSubscription() }));
    expect(await h1('Orders DB')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Delete Instance' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'Change Password' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'View Credentials' })).toHaveProperty('disabled', false);
    expect(screen.getByText('Suspended')).toBeTruthy();
  });

  it("deletes: 'Instance deleted successfully', then /instances", async () => {
    const app = renderDetail(orders, {
      [`DELETE /api/instances/${orders.id}`]: {
        status: 202,
        body: { instance: { ...orders, status: 'deleting' }, message: 'Instance deletion initiated' },
      },
    });
    await app.user.click(await screen.findByRole('button', { name: 'Delete Instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete instance?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Instance deleted successfully')).toBeTruthy();
    await waitFor(() => expect(app.location()).toBe('/instances'));
  });

  it('opens the credentials from the header', async () => {
    const app = renderDetail();
    await app.user.click(await screen.findByRole('button', { name: 'View Credentials' }));
    const dialog = await screen.findByRole('dialog', { name: 'Database Credentials' });
    expect(await within(dialog).findByText('Credentials retrieved')).toBeTruthy();
    await waitFor(() => expect(app.api.calls(ACCESS).length).toBeGreaterThan(0));
  });
});

describe('Instance Settings', () => {
  const settings = () => screen.findByRole('region', { name: 'Instance Settings' });

  it("saves name and description: 'Instance updated successfully'", async () => {
    const renamed = { ...orders, name: 'Orders', description: 'Shop orders' };
    const app = renderDetail(orders, {
      [`PUT /api/instances/${orders.id}`]: {
        body: { instance: renamed, message: 'Instance updated successfully' },
      },
    });
    const form = await settings();
    expect(within(form).getByRole('button', { name: 'Save Changes' })).toHaveProperty('disabled', true);
    await app.user.clear(within(form).getByLabelText(/Instance Name/));
    await app.user.type(within(form).getByLabelText(/Instance Name/), ' Orders ');
    await app.user.clear(within(form).getByLabelText('Description'));
    await app.user.type(within(form).getByLabelText('Description'), 'Shop orders');
    await app.user.click(within(form).getByRole('button', { name: 'Save Changes' }));

    expect(await screen.findByText('Instance updated successfully')).toBeTruthy();
    expect(app.api.calls(`PUT /api/instances/${orders.id}`)[0]?.body).toEqual({
      name: 'Orders',
      description: 'Shop orders',
    });
    expect(await h1('Orders')).toBeTruthy();
  });

  it.each([
    ['', 'Instance name is required'],
    ['x'.repeat(101), 'Name too long'],
  ])('name %j: %s', async (name, message) => {
    const app = renderDetail();
    const form = await settings();
    await app.user.clear(within(form).getByLabelText(/Instance Name/));
    if (name) {
      await app.user.click(within(form).getByLabelText(/Instance Name/));
      await app.user.paste(name);
    }
    await app.user.click(within(form).getByRole('button', { name: 'Save Changes' }));
    expect(await within(form).findByText(message)).toBeTruthy();
    expect(app.api.calls(`PUT /api/instances/${orders.id}`)).toHaveLength(0);
  });

  it("falls back to 'Failed to update instance'", async () => {
    const app = renderDetail(orders, {
      [`PUT /api/instances/${orders.id}`]: { status: 500, body: undefined },
    });
    const form = await settings();
    await app.user.type(within(form).getByLabelText('Description'), ' and more');
    await app.user.click(within(form).getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Failed to update instance')).toBeTruthy();
  });
});
