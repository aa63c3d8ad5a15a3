import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import {
  domainVerification,
  expiredSubscription,
  instanceList,
  makeInstance,
  makeUser,
  signedInApi,
} from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import type { CustomDomain, Instance } from '../../api/instances.queries.ts';

const site = makeInstance({
  name: 'Shop',
  type: 'WordPress',
  product: 'wordpress',
  category: 'application',
  url: 'https://shop-x2.sites.example.net',
  adminUrl: 'https://shop-x2.sites.example.net/wp-admin/',
  metadata: { database: false },
});

const custom = (status: CustomDomain['ssl']['status']): CustomDomain => ({
  domain: 'shop.example.com',
  addedAt: '2026-11-21T10:00:00.000Z',
  isActive: status === 'Active',
  ssl: { status, isPrimary: true, message: '', lastChecked: null },
  verification: domainVerification('shop.example.com'),
});

function renderDashboard(instance: Instance, api: FakeRoutes = {}, user = makeUser()) {
  return renderApp({
    path: '/dashboard',
    token: 'stored',
    api: { ...signedInApi(user), 'GET /api/instances': { body: instanceList([instance]) }, ...api },
  });
}

const panel = () => screen.findByRole('region', { name: 'Domain Management' });

describe('Domain Management on the dashboard', () => {
  it.each([
    ['Active', 'SSL Active'],
    ['Pending', 'SSL Pending'],
    ['FAILED', 'SSL Failed'],
  ] as const)('shows %s as %s with the Custom tag and Update Custom Domain', async (status, badge) => {
    renderDashboard({ ...site, customDomain: custom(status) });
    const region = await panel();
    expect(within(region).getByText(badge)).toBeTruthy();
    expect(within(region).getByText('shop.example.com')).toBeTruthy();
    expect(within(region).getByText('Custom')).toBeTruthy();
    expect(within(region).getByRole('button', { name: 'Update Custom Domain' })).toBeTruthy();
  });

  it('adds a custom domain: the form, its rules, Cancel and the toasts', async () => {
    const app = renderDashboard(site, {
      [`POST /api/instances/${site.id}/domain`]: {
        body: {
          instance: { ...site, customDomain: custom('Pending') },
          message: 'Custom domain added successfully',
        },
      },
    });
    const region = await panel();
    expect(within(region).getByText('shop-x2.sites.example.net')).toBeTruthy();
    expect(within(region).queryByText('Custom')).toBeNull();
    expect(within(region).getByText('Not Configured')).toBeTruthy();
    await app.user.click(within(region).getByRole('button', { name: 'Add Custom Domain' }));
    // The form's code loads when it is first opened.
    const form = within(await within(region).findByRole('form', { name: 'Add Custom Domain' }));
    expect(form.getByLabelText(/Domain Name/).getAttribute('placeholder')).toBe('shop-x2.sites.example.net');
    await app.user.click(form.getByRole('button', { name: 'Cancel' }));
    expect(within(region).queryByRole('form')).toBeNull();

    await app.user.click(within(region).getByRole('button', { name: 'Add Custom Domain' }));
    await app.user.type(within(region).getByLabelText(/Domain Name/), '   ');
    await app.user.click(within(region).getByRole('button', { name: 'Add Domain' }));
    expect(await within(region).findByText('Domain is required')).toBeTruthy();
    expect(app.api.calls(`POST /api/instances/${site.id}/domain`)).toHaveLength(0);
    await app.user.type(within(region).getByLabelText(/Domain Name/), 'shop.example.com');
    await app.user.click(within(region).getByRole('button', { name: 'Add Domain' }));
    expect(await screen.findByText('Custom domain added successfully')).toBeTruthy();
    expect(app.api.calls(`POST /api/instances/${site.id}/domain`)[0]?.body).toEqual({
      domain: 'shop.example.com',
    });
  });

  it("says 'Failed to add custom domain', or the server's reason", async () => {
    const app = renderDashboard(site, {
      [`POST /api/instances/${site.id}/domain`]: {
        status: 400,
        body: { error: 'validation_error', message: 'Please enter a valid domain name' },
      },
    });
    const region = await panel();
    await app.user.click(within(region).getByRole('button', { name: 'Add Custom Domain' }));
    await app.user.type(within(region).getByLabelText(/Domain Name/), 'shop.example.com');
    await app.user.click(within(region).getByRole('button', { name: 'Add Domain' }));
    expect(await screen.findByText('Please enter a valid domain name')).toBeTruthy();
  });

  it('disables adding domains while the subscription is inactive', async () => {
    renderDashboard(site, {}, makeUser({ subscription: expiredSubscription() }));
    const region = await panel();
    expect(within(region).getByRole('button', { name: 'Add Custom Domain' })).toHaveProperty(
      'disabled',
      true,
    );
  });
});
