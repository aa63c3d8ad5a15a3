import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CannedAnswer, FakeRoutes } from '../../../test/fake-api.ts';
import {
  apiError,
  backupRow,
  databaseAccess,
  domainVerification,
  expiredSubscription,
  featuresOf,
  makeInstance,
  makeUser,
} from '../../../test/fixtures.ts';
import { renderInstances } from '../../../test/instances.ts';
import type { CustomDomain, Instance } from '../../api/instances.queries.ts';
import { ADDONS_FAILED } from './wordpress-addons.ts';
import { PRIVATE_SITE_DATABASE, STORAGE_FULL_HINT } from './wordpress-panels.tsx';

const domain = (status: CustomDomain['ssl']['status'], message = 'HTTPS is enabled'): CustomDomain => ({
  domain: 'blog.example.com',
  addedAt: '2026-11-21T10:00:00.000Z',
  isActive: status === 'Active',
  ssl: { status, isPrimary: true, message, lastChecked: '2026-11-21T10:05:00.000Z' },
  verification: domainVerification('blog.example.com'),
});

const blog = makeInstance({
  name: 'Blog',
  type: 'WordPress',
  product: 'wordpress',
  category: 'application',
  url: 'https://blog-x1.sites.example.net',
  adminUrl: 'https://blog-x1.sites.example.net/wp-admin/',
  metadata: { database: false },
});
const BASE = `/api/instances/${blog.id}`;

const ACCESS = {
  ...databaseAccess({ user: 'wp_blog', password: 'Db-Pass_123', name: 'wp_blog' }),
  sftp: { ipAddress: '203.0.113.7', port: 2222, user: 'sftp_blog', password: 'Sftp-Pass_456' },
};

const BACKUPS = [
  backupRow({
    id: 'b2',
    name: 'Before update',
    note: 'Plugins 2026',
    createdAt: '2026-11-21T09:00:00.000Z',
    size: 2_500_000,
  }),
  backupRow({ id: 'b1', name: 'First', createdAt: '2026-11-20T09:00:00.000Z', size: 40_000 }),
];

const ADDONS = [
  {
    slug: 'seo',
    name: 'Yoast SEO',
    description: 'SEO analysis.',
    url: 'https://wordpress.org/plugins/seo/',
    logo: 'https://x/seo.png',
    category: 'SEO',
  },
  {
    slug: 'cache',
    name: 'WP Super Cache',
    description: 'Static pages.',
    url: 'https://wordpress.org/plugins/cache/',
    logo: 'https://x/cache.png',
    category: 'Performance',
  },
  {
    slug: 'rank',
    name: 'Rank Math',
    description: 'More SEO.',
    url: 'https://wordpress.org/plugins/rank/',
    logo: '',
    category: 'SEO',
  },
];

function renderBlog(instance: Instance = blog, api: FakeRoutes = {}, user = makeUser()) {
  return renderInstances(
    {
      [`GET ${BASE}`]: { body: { instance } },
      [`GET ${BASE}/access`]: { body: ACCESS },
      [`GET ${BASE}/backups`]: { body: BACKUPS },
      [`GET ${BASE}/storage`]: { body: { usedBytes: 64 * 1_048_576, limitBytes: 1024 * 1_048_576 } },
      'GET /wp-addons.json': { body: ADDONS },
      ...api,
    },
    user,
    `/instances/${instance.id}`,
  );
}

const card = () => screen.findByRole('region', { name: 'WordPress' });
const term = (region: HTMLElement, label: string) =>
  within(region).getByText(label, { selector: 'dt' }).nextElementSibling?.textContent ?? '';

afterEach(() => {
  vi.useRealTimers();
});

describe('WordPress detail', () => {
  it('has Open Instance, Admin and Manage Domain, and the Files & Database credentials', async () => {
    const app = renderBlog();
    expect(await screen.findByRole('heading', { level: 1, name: 'Blog' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Open Instance' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Admin' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Manage Domain' })).toBeTruthy();
    const wordpress = await card();
    expect(within(wordpress).getByRole('tab', { name: 'Files & Database', selected: true })).toBeTruthy();
    await waitFor(() => expect(term(wordpress, 'SFTP Address')).toContain('203.0.113.7'));
    expect(term(wordpress, 'SFTP Port')).toContain('2222');
    expect(term(wordpress, 'SFTP User')).toContain('sftp_blog');
    expect(term(wordpress, 'Database User')).toContain('wp_blog');
    expect(term(wordpress, 'SFTP Password')).not.toContain('Sftp-Pass_456');
    await app.user.click(within(wordpress).getByRole('button', { name: 'Show SFTP password' }));
    expect(term(wordpress, 'SFTP Password')).toContain('Sftp-Pass_456');
    await app.user.click(within(wordpress).getByRole('button', { name: 'Show database password' }));
    expect(term(wordpress, 'Database Password')).toContain('Db-Pass_123');
  });

  it('says the site database is private when the server gives no way to reach it, with the reason', async () => {
    const reason = 'A site’s own database has no phpMyAdmin here: manage its content in WordPress';
    const site = { ...blog, features: featuresOf('wordpress', { databaseAdmin: reason }) };
    renderBlog(site, { [`GET ${BASE}/access`]: { body: { ...ACCESS, database: null } } });
    const wordpress = await card();
    await waitFor(() => expect(term(wordpress, 'SFTP User')).toContain('sftp_blog'));
    expect(within(wordpress).getByText(PRIVATE_SITE_DATABASE)).toBeTruthy();
    expect(within(wordpress).queryByText('Database User', { selector: 'dt' })).toBeNull();
    expect(within(wordpress).getByText(reason)).toBeTruthy();
  });

  it('shows how much of its storage the site uses, and warns when it is nearly full', async () => {
    renderBlog();
    const wordpress = await card();
    expect(await within(wordpress).findByText('64 MB of 1,024 MB used')).toBeTruthy();
    expect(within(wordpress).queryByText(STORAGE_FULL_HINT)).toBeNull();
    cleanup();
    renderBlog(blog, {
      [`GET ${BASE}/storage`]: { body: { usedBytes: 950 * 1_048_576, limitBytes: 1000 * 1_048_576 } },
    });
    const full = await card();
    expect(await within(full).findByText('950 MB of 1,000 MB used')).toBeTruthy();
    expect(within(full).getByText(STORAGE_FULL_HINT)).toBeTruthy();
  });

  it('lists, creates, restores and deletes backups with their toasts', async () => {
    const app = renderBlog(blog, {
      [`POST ${BASE}/backups/new`]: {
        status: 201,
        body: { id: 'b3', backupId: 'b3', 'backup-id': 'b3', message: 'Backup creation started' },
      },
      [`POST ${BASE}/backups/b2/restore`]: { body: { message: 'Restore initiated' } },
      [`DELETE ${BASE}/backups/b1`]: { status: 500, body: apiError('Disk gone', 'internal_error') },
    });
    const wordpress = await card();
    await app.user.click(within(wordpress).getByRole('tab', { name: 'Backups' }));
    const list = await within(wordpress).findByRole('list', { name: 'Backups' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.getAttribute('aria-label')),
    ).toEqual(['Before update', 'First']);
    expect(within(list).getByText('Plugins 2026')).toBeTruthy();

    const create = within(wordpress).getByRole('form', { name: 'Create backup' });
    await app.user.click(within(create).getByRole('button', { name: 'Create Backup' }));
    expect(await within(create).findByText('Backup name is required')).toBeTruthy();
    await app.user.type(within(create).getByLabelText(/Backup Name/), 'Nightly');
    await app.user.type(within(create).getByLabelText('Note (optional)'), 'Before the theme');
    await app.user.click(within(create).getByRole('button', { name: 'Create Backup' }));
    expect(await screen.findByText('Backup creation started')).toBeTruthy();
    expect(app.api.calls(`POST ${BASE}/backups/new`)[0]?.body).toEqual({
      name: 'Nightly',
      note: 'Before the theme',
    });

    await app.user.click(
      within(within(list).getByRole('listitem', { name: 'Before update' })).getByRole('button', {
        name: 'Restore',
      }),
    );
    const restore = await screen.findByRole('dialog', { name: 'Restore backup?' });
    await app.user.click(within(restore).getByRole('button', { name: 'Restore' }));
    expect(await screen.findByText('Restore initiated')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(app.api.calls(`POST ${BASE}/backups/b2/restore`)).toHaveLength(1);

    await app.user.click(
      within(within(list).getByRole('listitem', { name: 'First' })).getByRole('button', { name: 'Delete' }),
    );
    const remove = await screen.findByRole('dialog', { name: 'Delete backup?' });
    await app.user.click(within(remove).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Disk gone')).toBeTruthy();
    expect(app.api.calls(`DELETE ${BASE}/backups/b1`)).toHaveLength(1);
  });

  it("toasts 'Backup deleted', and the validation of the note", async () => {
    const app = renderBlog(blog, { [`DELETE ${BASE}/backups/b1`]: { body: { message: 'Backup deleted' } } });
    const wordpress = await card();
    await app.user.click(within(wordpress).getByRole('tab', { name: 'Backups' }));
    const list = await within(wordpress).findByRole('list', { name: 'Backups' });
    await app.user.click(
      within(within(list).getByRole('listitem', { name: 'First' })).getByRole('button', { name: 'Delete' }),
    );
    await app.user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Backup deleted')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    const create = within(wordpress).getByRole('form', { name: 'Create backup' });
    await app.user.type(within(create).getByLabelText(/Backup Name/), 'x');
    fireEvent.change(within(create).getByLabelText('Note (optional)'), {
      target: { value: 'n'.repeat(501) },
    });
    await app.user.click(within(create).getByRole('button', { name: 'Create Backup' }));
    expect(await within(create).findByText('Note too long')).toBeTruthy();
    expect(app.api.calls(`POST ${BASE}/backups/new`)).toHaveLength(0);
  });

  it('disables creating, restoring and deleting backups while the subscription is inactive', async () => {
    const app = renderBlog(blog, {}, makeUser({ subscription: expiredSubscription() }));
    const wordpress = await card();
    await app.user.click(within(wordpress).getByRole('tab', { name: 'Backups' }));
    const list = await within(wordpress).findByRole('list', { name: 'Backups' });
    expect(
      within(wordpress).getByText('Your subscription is inactive. Creating backups is disabled.'),
    ).toBeTruthy();
    expect(within(wordpress).getByRole('button', { name: 'Create Backup' })).toHaveProperty('disabled', true);
    for (const name of ['Restore', 'Delete']) {
      for (const button of within(list).getAllByRole('button', { name })) {
        expect(button).toHaveProperty('disabled', true);
      }
    }
    // The customer's data stays theirs: a download works while the subscription is inactive.
    for (const button of within(list).getAllByRole('button', { name: 'Download' })) {
      expect(button).toHaveProperty('disabled', false);
    }
    await app.user.hover(
      within(list).getAllByRole('button', { name: 'Restore' })[0]?.parentElement as HTMLElement,
    );
    expect(await screen.findByText('Restoring backups is disabled.')).toBeTruthy();
  });

  it('shows the add-ons grouped by category with links, and an icon for a broken logo', async () => {
    const app = renderBlog();
    const wordpress = await card();
    await app.user.click(within(wordpress).getByRole('tab', { name: 'Add-ons' }));
    const seo = await within(wordpress).findByRole('region', { name: 'SEO' });
    expect(
      within(seo)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['Yoast SEO', 'Rank Math']);
    expect(within(seo).getByRole('link', { name: 'Yoast SEO' }).getAttribute('href')).toBe(
      'https://wordpress.org/plugins/seo/',
    );
    expect(within(seo).getByText('SEO analysis.')).toBeTruthy();
    const performance = within(wordpress).getByRole('region', { name: 'Performance' });
    expect(within(performance).getByText('WP Super Cache')).toBeTruthy();
    const request = app.api.calls('GET /wp-addons.json')[0];
    expect(request).toBeTruthy();
    const logo = performance.querySelector('img');
    expect(logo?.getAttribute('src')).toBe('https://x/cache.png');
    if (logo) fireEvent.error(logo);
    await waitFor(() => expect(within(performance).getByTestId('addon-logo-fallback')).toBeTruthy());
  });

  it("gives up on the add-ons after 7 s: 'Unable to load add-ons from JSON.' with Retry and Reload", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    let answer = false;
    const app = renderBlog(blog, {
      'GET /wp-addons.json': () => (answer ? { body: ADDONS } : new Promise(() => {})),
    });
    const wordpress = await card();
    await app.user.click(within(wordpress).getByRole('tab', { name: 'Add-ons' }));
    expect(within(wordpress).getByRole('status')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(6900));
    expect(within(wordpress).queryByText(ADDONS_FAILED)).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(await within(wordpress).findByText(ADDONS_FAILED)).toBeTruthy();
    expect(within(wordpress).getByRole('button', { name: 'Reload' })).toBeTruthy();
    answer = true;
    await app.user.click(within(wordpress).getByRole('button', { name: 'Retry' }));
    expect(await within(wordpress).findByRole('region', { name: 'SEO' })).toBeTruthy();
  });

  it('shows the failure state when the list cannot be read', async () => {
    const app = renderBlog(blog, { 'GET /wp-addons.json': { status: 404, body: { error: 'not_found' } } });
    const wordpress = await card();
    await app.user.click(within(wordpress).getByRole('tab', { name: 'Add-ons' }));
    expect(await within(wordpress).findByText(ADDONS_FAILED)).toBeTruthy();
  });
});

describe('custom domain and SSL on the detail page', () => {
  it('adds a custom domain from Manage Domain, with the rules and the toast', async () => {
    const added = {
      ...blog,
      customDomain: {
        ...domain('Pending', 'A custom domain is pending activation until DNS is set up'),
        verification: domainVerification('blog.example.com', 'pending'),
      },
    };
    const app = renderBlog(blog, {
      [`POST ${BASE}/domain`]: { body: { instance: added, message: 'Custom domain added successfully' } },
    });
    const section = await screen.findByRole('region', { name: 'Custom Domain' });
    expect(within(section).getByText('Not Configured')).toBeTruthy();
    await app.user.click(screen.getByRole('button', { name: 'Manage Domain' }));
    const form = within(section).getByRole('form', { name: 'Add Custom Domain' });
    const field = within(form).getByLabelText(/Domain Name/);
    expect(field.getAttribute('placeholder')).toBe('blog-x1.sites.example.net');
    await app.user.click(within(form).getByRole('button', { name: 'Add Domain' }));
    expect(await within(form).findByText('Domain is required')).toBeTruthy();
    await app.user.type(field, 'not a domain');
    expect(await within(form).findByText('Please enter a valid domain name')).toBeTruthy();
    await app.user.clear(field);
    await app.user.type(field, 'blog.example.com');
    await app.user.click(within(form).getByRole('button', { name: 'Add Domain' }));
    expect(await screen.findByText('Custom domain added successfully')).toBeTruthy();
    expect(app.api.calls(`POST ${BASE}/domain`)[0]?.body).toEqual({ domain: 'blog.example.com' });
    expect(await within(section).findByText('SSL Pending')).toBeTruthy();
    expect(within(section).getByText('Pending verification')).toBeTruthy();
    expect(within(section).getByText('_berth-verify.blog.example.com')).toBeTruthy();
    expect(within(section).getByRole('button', { name: 'Update Custom Domain' })).toBeTruthy();
  });

  it('shows a pending domain with its TXT record to copy, and Verify now attaches it once DNS has it', {
    timeout: 15_000,
  }, async () => {
    const write = vi.spyOn(navigator.clipboard, 'writeText');
    const record = domainVerification('blog.example.com', 'pending').record;
    const pending = (message: string | null, lastChecked: string | null = null): Instance => ({
      ...blog,
      customDomain: {
        ...domain('Pending', 'A custom domain is pending activation until DNS is set up'),
        verification: domainVerification('blog.example.com', 'pending', { message, lastChecked }),
      },
    });
    const notYet = 'No TXT record _berth-verify.blog.example.com found yet';
    let answer: CannedAnswer = {
      body: { instance: pending(notYet, '2026-11-21T10:06:00.000Z'), message: notYet },
    };
    const app = renderBlog(pending(null), { [`POST ${BASE}/domain/verify`]: () => answer });
    const section = await screen.findByRole('region', { name: 'Custom Domain' });
    const panel = within(section).getByRole('region', { name: 'Domain verification' });
    expect(within(panel).getByText('Pending verification')).toBeTruthy();
    expect(
      within(panel).getByText(/^A custom domain is pending activation until DNS is set up\./),
    ).toBeTruthy();
    const txt = within(panel).getByLabelText('TXT record');
    expect(term(txt, 'Type')).toContain('TXT');
    expect(term(txt, 'Name')).toContain('_berth-verify.blog.example.com');
    expect(term(txt, 'Value')).toContain(record.value);
    await app.user.click(within(txt).getByRole('button', { name: 'Copy value' }));
    expect(write).toHaveBeenCalledWith(record.value);
    expect(await screen.findByText('Value copied to clipboard')).toBeTruthy();
    // No SSL check nor the A-record hint before the domain is attached.
    expect(within(section).queryByRole('button', { name: 'Check SSL Status' })).toBeNull();

    await app.user.click(within(panel).getByRole('button', { name: 'Verify now' }));
    expect(await screen.findByText(notYet, { selector: '[role="alert"] *' })).toBeTruthy();
    expect(await within(panel).findByText(new RegExp(`^${notYet} · checked`))).toBeTruthy();

    answer = {
      body: {
        instance: {
          ...blog,
          url: 'https://blog.example.com',
          customDomain: {
            ...domain('Pending', 'Not checked yet'),
            ssl: { status: 'Pending', message: 'Not checked yet', lastChecked: null },
          },
        },
        message: 'Domain verified and attached',
      },
    };
    await app.user.click(within(panel).getByRole('button', { name: 'Verify now' }));
    expect(await screen.findByText('Domain verified and attached')).toBeTruthy();
    await waitFor(() =>
      expect(within(section).queryByRole('region', { name: 'Domain verification' })).toBeNull(),
    );
    expect(within(section).getByRole('button', { name: 'Check SSL Status' })).toBeTruthy();
    expect(app.api.calls(`POST ${BASE}/domain/verify`)).toHaveLength(2);
  });

  it('shows a verified domain waiting for the site, and a failed one with the reason and 409 toast', async () => {
    const failed = {
      ...blog,
      customDomain: {
        ...domain('Pending'),
        verification: domainVerification('blog.example.com', 'failed', {
          message: 'The domain blog.example.com is already in use by another account',
        }),
      },
    };
    const app = renderBlog(failed, {
      [`POST ${BASE}/domain/verify`]: {
        status: 409,
        body: apiError('The domain blog.example.com is already in use by another account', 'conflict'),
      },
    });
    const section = await screen.findByRole('region', { name: 'Custom Domain' });
    const panel = within(section).getByRole('region', { name: 'Domain verification' });
    expect(within(panel).getByText('Verification failed')).toBeTruthy();
    expect(
      within(panel).getByText('The domain blog.example.com is already in use by another account'),
    ).toBeTruthy();
    await app.user.click(within(panel).getByRole('button', { name: 'Verify now' }));
    expect(
      await screen.findByText('The domain blog.example.com is already in use by another account', {
        selector: '[role="alert"] *',
      }),
    ).toBeTruthy();
    app.unmount();

    renderBlog({
      ...blog,
      customDomain: {
        ...domain('Pending'),
        verification: domainVerification('blog.example.com', 'verified', {
          message: 'Verified; the domain is attached once the site runs',
        }),
      },
    });
    const verified = await screen.findByRole('region', { name: 'Domain verification' });
    expect(within(verified).getByText('Verified')).toBeTruthy();
    expect(within(verified).getByText(/attached as soon as the site runs/)).toBeTruthy();
    expect(within(verified).queryByLabelText('TXT record')).toBeNull();
  });

  it("toasts 'Failed to add custom domain' with the server's reason when there is none", async () => {
    const app = renderBlog(blog, { [`POST ${BASE}/domain`]: { status: 500, body: { error: 'x' } } });
    const section = await screen.findByRole('region', { name: 'Custom Domain' });
    await app.user.click(within(section).getByRole('button', { name: 'Add Custom Domain' }));
    await app.user.type(within(section).getByLabelText(/Domain Name/), 'blog.example.com');
    await app.user.click(within(section).getByRole('button', { name: 'Add Domain' }));
    expect(await screen.findByText('Failed to add custom domain')).toBeTruthy();
  });

  it('removes the domain after the modal, and checks SSL', async () => {
    const withDomain = { ...blog, customDomain: domain('Active') };
    const app = renderBlog(withDomain, {
      [`DELETE ${BASE}/domain`]: {
        body: { instance: { ...blog, customDomain: null }, message: 'Custom domain removed successfully' },
      },
      [`GET ${BASE}/ssl`]: { status: 500, body: { error: 'x' } },
    });
    const section = await screen.findByRole('region', { name: 'Custom Domain' });
    expect(within(section).getByText('SSL Active')).toBeTruthy();
    expect(within(section).getByText('blog.example.com')).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'SSL Certificate' })).toBeNull();
    await app.user.click(within(section).getByRole('button', { name: 'Check SSL Status' }));
    expect(await screen.findByText('Failed to check SSL status')).toBeTruthy();
    await app.user.click(within(section).getByRole('button', { name: 'Remove' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove custom domain?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Remove Domain' }));
    expect(await screen.findByText('Custom domain removed successfully')).toBeTruthy();
    expect(await within(section).findByText('Not Configured')).toBeTruthy();
  });

  it('shows the SSL Certificate card only when FAILED, with request and re-issue', async () => {
    const failed = { ...blog, customDomain: domain('FAILED', 'DNS does not point here') };
    const app = renderBlog(failed, {
      [`POST ${BASE}/ssl`]: {
        body: { ssl: null, status: 'Pending', message: 'Requested SSL. It may take a moment to activate.' },
      },
    });
    const ssl = await screen.findByRole('region', { name: 'SSL Certificate' });
    expect(
      within(screen.getByRole('region', { name: 'Custom Domain' })).getByText('SSL Failed'),
    ).toBeTruthy();
    expect(within(ssl).getByText('DNS does not point here')).toBeTruthy();
    await app.user.click(within(ssl).getByRole('button', { name: 'Request SSL' }));
    expect(await screen.findByText('Requested SSL. It may take a moment to activate.')).toBeTruthy();
    await app.user.click(within(ssl).getByRole('button', { name: 'Re-issue Certificate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Re-issue SSL certificate?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Re-issue' }));
    expect(await screen.findByText('SSL certificate management initiated')).toBeTruthy();
    expect(app.api.calls(`POST ${BASE}/ssl`)).toHaveLength(2);
  });

  it('disables adding domains and requesting SSL while the subscription is inactive', async () => {
    const failed = { ...blog, customDomain: domain('FAILED', 'DNS does not point here') };
    renderBlog(failed, {}, makeUser({ subscription: expiredSubscription() }));
    const ssl = await screen.findByRole('region', { name: 'SSL Certificate' });
    expect(within(ssl).getByRole('button', { name: 'Request SSL' })).toHaveProperty('disabled', true);
    const section = screen.getByRole('region', { name: 'Custom Domain' });
    expect(within(section).getByRole('button', { name: 'Update Custom Domain' })).toHaveProperty(
      'disabled',
      true,
    );
    expect(within(section).getByRole('button', { name: 'Remove' })).toHaveProperty('disabled', true);
  });
});

describe('WordPress in the instance list', () => {
  it('shows the custom domain with its SSL state, and Manage, Open and Admin', async () => {
    renderInstances({
      'GET /api/instances': {
        body: {
          instances: [{ ...blog, customDomain: domain('Pending') }],
          total: 1,
          pages: 1,
          page: 1,
          limit: 24,
        },
      },
    });
    const article = await screen.findByRole('article', { name: 'Blog' });
    expect(within(article).getByText('blog.example.com')).toBeTruthy();
    expect(within(article).getByLabelText('SSL Pending')).toBeTruthy();
    expect(within(article).getByRole('link', { name: 'Manage Blog' }).getAttribute('href')).toBe(
      `/instances/${blog.id}`,
    );
    expect(within(article).getByRole('button', { name: 'Open Blog' })).toBeTruthy();
    expect(within(article).getByRole('button', { name: 'Admin of Blog' })).toBeTruthy();
  });
});
