import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { backupRow, databaseAccess, featuresOf, makeInstance } from '../../../test/fixtures.ts';
import { renderInstances, serveInstances } from '../../../test/instances.ts';
import type { Instance } from '../../api/instances.queries.ts';

/**
 * A feature the server does not offer for an instance's type (its `features`, as the driver's engine
 * declares them) keeps its place on the page with the server's reason, and the page never asks for it.
 */

const NO_SFTP = 'SFTP is not offered on this server yet';
const NO_USAGE = 'This server does not measure usage yet';
const NO_PMA = 'phpMyAdmin is not offered on this server';
const NO_STORAGE = 'Storage figures are not shown on this server yet';
const NO_BACKUPS = 'Backups of n8n are not offered on this server yet';
const NO_DOMAINS = 'Custom domains for n8n are coming to this server soon';
const NO_PASSWORD = 'Password changes are not offered here yet';

const blog = makeInstance({
  name: 'Blog',
  type: 'WordPress',
  product: 'wordpress',
  category: 'application',
  url: 'http://blog-x1.sites.example.net',
  adminUrl: 'http://blog-x1.sites.example.net/wp-admin/',
  metadata: { database: false },
  features: featuresOf('wordpress', {
    sftp: NO_SFTP,
    usage: NO_USAGE,
    databaseAdmin: NO_PMA,
    storage: NO_STORAGE,
  }),
});

const flows = makeInstance({
  name: 'Flows',
  type: 'n8n',
  product: 'n8n',
  category: 'application',
  url: 'http://flows-x1.sites.example.net',
  adminUrl: 'http://flows-x1.sites.example.net/',
  metadata: { database: false },
  features: featuresOf('n8n', { backups: NO_BACKUPS, domains: NO_DOMAINS }),
});

const orders = makeInstance({
  name: 'Orders',
  features: featuresOf('mysql', { password: NO_PASSWORD, databaseAdmin: NO_PMA }),
});

function renderDetail(instance: Instance, tab = '') {
  const base = `/api/instances/${instance.id}`;
  return renderInstances(
    {
      [`GET ${base}`]: { body: { instance } },
      [`GET ${base}/access`]: {
        body: { ...databaseAccess({ user: 'wp_blog', password: 'Db-Pass_123' }), sftp: null },
      },
      [`GET ${base}/backups`]: { body: [backupRow({ id: 'b1', name: 'First' })] },
      [`GET ${base}/storage`]: { body: { usedBytes: 1, limitBytes: 2 } },
      'GET /wp-addons.json': { body: [] },
    },
    undefined,
    `/instances/${instance.id}${tab}`,
  );
}

/** The reason as the page shows it where the feature would be. */
const notice = (region: HTMLElement, reason: string) =>
  within(region)
    .getAllByRole('note')
    .find((note) => note.textContent === reason);

/** A disabled button whose tooltip (MUI labels the wrapper with it) is `reason`. */
const disabledWith = (name: string, reason: string) => {
  const wrapper = screen.getByLabelText(reason);
  const button = within(wrapper).getByRole('button', { name });
  expect(button).toHaveProperty('disabled', true);
};

describe('features this server does not offer', () => {
  it('WordPress: the SFTP block, the phpMyAdmin place and the storage figure say why; no storage is asked for', async () => {
    const app = renderDetail(blog);
    const card = await screen.findByRole('region', { name: 'WordPress' });
    await waitFor(() => expect(notice(card, NO_SFTP)).toBeTruthy());
    expect(within(card).queryByText('SFTP Address')).toBeNull();
    expect(notice(card, NO_PMA)).toBeTruthy();
    expect(notice(card, NO_STORAGE)).toBeTruthy();
    expect(within(card).queryByRole('progressbar', { name: 'Storage used' })).toBeNull();
    // The database login is still there.
    expect(within(card).getByText('Database User')).toBeTruthy();
    expect(app.api.calls(`GET /api/instances/${blog.id}/storage`)).toEqual([]);
    // Domains are offered: Manage Domain works as usual.
    expect(screen.getByRole('button', { name: 'Manage Domain' })).toHaveProperty('disabled', false);
  });

  it('the Usage tab says why, and nothing on the page asks for usage', async () => {
    const app = renderDetail(blog, '?tab=usage');
    const panel = await screen.findByRole('tabpanel');
    await waitFor(() => expect(notice(panel, NO_USAGE)).toBeTruthy());
    expect(screen.queryByRole('group', { name: 'Time range' })).toBeNull();
    expect(app.api.calls(`GET /api/instances/${blog.id}/usage`)).toEqual([]);
  });

  it('n8n: the Backups card and the Custom Domain card say why; Manage Domain is disabled with the reason', async () => {
    const app = renderDetail(flows);
    const backups = await screen.findByRole('region', { name: 'Backups' });
    expect(notice(backups, NO_BACKUPS)).toBeTruthy();
    expect(within(backups).queryByRole('button', { name: /create/i })).toBeNull();
    const domain = screen.getByRole('region', { name: 'Custom Domain' });
    expect(notice(domain, NO_DOMAINS)).toBeTruthy();
    expect(within(domain).queryByRole('button', { name: 'Add Custom Domain' })).toBeNull();
    disabledWith('Manage Domain', NO_DOMAINS);
    expect(app.api.calls(`GET /api/instances/${flows.id}/backups`)).toEqual([]);
  });

  it('MySQL: Change Password and phpMyAdmin are disabled with their reasons, on the page and on its card', async () => {
    renderDetail(orders);
    await screen.findByRole('heading', { level: 1, name: 'Orders' });
    disabledWith('Change Password', NO_PASSWORD);
    disabledWith('phpMyAdmin', NO_PMA);
  });

  it('the instance list card disables Change Password with the reason too', async () => {
    renderInstances({ 'GET /api/instances': serveInstances([orders]) });
    await screen.findByText('Orders');
    const wrapper = await screen.findByLabelText(NO_PASSWORD);
    expect(within(wrapper).getByRole('button', { name: 'Change password of Orders' })).toHaveProperty(
      'disabled',
      true,
    );
  });
});
