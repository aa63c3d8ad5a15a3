import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, makeUser, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import {
  adminPaymentSettings,
  adminUser,
  adminUserList,
  metamaskOrder,
  metamaskOrderList,
  RECEIVER,
  TX_HASH,
  ticketPage,
} from './admin-fixtures.ts';

const admin = makeUser({ role: 'admin', username: 'root' });

const ADMIN_ROUTES: FakeRoutes = {
  ...signedInApi(admin),
  'GET /api/admin/payment-settings': { body: adminPaymentSettings() },
  'GET /api/admin/payments/metamask': { body: metamaskOrderList() },
  'GET /api/admin/users': { body: adminUserList() },
};

function renderAdmin(api: FakeRoutes = {}, path = '/admin-panel?tab=payments') {
  return renderApp({ path, token: 'stored', api: { ...ADMIN_ROUTES, ...api } });
}

const settingsForm = () => screen.findByRole('form', { name: 'Payment settings' });
const metamaskSection = () => screen.findByRole('region', { name: 'MetaMask payments to review' });
const toast = (text: string) => screen.findByText(text, { selector: '[role="alert"] *' });

describe('admin panel access (spec platform-area "Admin (role admin)")', () => {
  it('sends a non-admin to /dashboard', async () => {
    const app = renderApp({ path: '/admin-panel', token: 'stored', api: signedInApi() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Dashboard' })).toBeTruthy();
    expect(app.location()).toBe('/dashboard');
    expect(app.api.calls('GET /api/admin/payment-settings')).toHaveLength(0);
  });

  it('shows admins the panel with the Help Desk first, the other tabs, and the top bar link', async () => {
    const app = renderAdmin({ 'GET /api/help/all': { body: ticketPage([]) } }, '/admin-panel');
    expect(await screen.findByRole('heading', { level: 1, name: 'Admin Panel' })).toBeTruthy();
    expect(screen.getByText(/Answer support tickets/)).toBeTruthy();
    const tabs = screen.getByRole('tablist', { name: 'Admin Panel sections' });
    expect(
      within(tabs)
        .getAllByRole('tab')
        .map((tab) => tab.textContent),
    ).toEqual(['Help Desk', 'Notifications', 'Users', 'Payments', 'Affiliates', 'Server']);
    expect(screen.getByRole('tab', { name: 'Help Desk' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('tabpanel', { name: 'Help Desk' })).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Admin Panel' }).getAttribute('href')).toBe('/admin-panel');

    await app.user.click(screen.getByRole('tab', { name: 'Users' }));
    expect(await screen.findByRole('tabpanel', { name: 'Users' })).toBeTruthy();
    expect(app.location()).toBe('/admin-panel?tab=users');
  });
});

describe('what this server can deploy (Admin Panel → Server)', () => {
  it('shows admins what customers read of an unavailable type, and the operator’s reason and command', async () => {
    const detail =
      'n8n 2.8.4 is not installed on this host (/var/cache/berth/runtimes/n8n-2.8.4); install it with: npm run install-n8n';
    const customers = 'n8n is being set up on this server; it will be ready in about 4 minutes';
    renderAdmin(
      {
        'GET /api/admin/capabilities': {
          body: {
            types: [
              {
                type: 'mysql',
                name: 'MySQL',
                category: 'database',
                available: true,
                reason: null,
                detail: null,
              },
              {
                type: 'n8n',
                name: 'n8n',
                category: 'application',
                available: false,
                reason: customers,
                detail,
              },
            ],
            backups: {
              offsite: true,
              where: 'S3 bucket berth-backups at https://s3.example.net',
              detail: null,
            },
          },
        },
      },
      '/admin-panel?tab=server',
    );
    expect(
      await screen.findByText('Backups are off-site: S3 bucket berth-backups at https://s3.example.net.'),
    ).toBeTruthy();
    const n8n = await screen.findByRole('listitem', { name: 'n8n' });
    expect(within(n8n).getByText('Unavailable')).toBeTruthy();
    expect(within(n8n).getByText(`Customers read: ${customers}`)).toBeTruthy();
    expect(within(n8n).getByText(detail)).toBeTruthy();
    const mysql = screen.getByRole('listitem', { name: 'MySQL' });
    expect(within(mysql).getByText('Available')).toBeTruthy();
    expect(within(mysql).queryByText(/Customers read/)).toBeNull();
  });

  it('counts what the last sweep of the backup store found: orphans, and backups missing files', async () => {
    renderAdmin(
      {
        'GET /api/admin/capabilities': {
          body: {
            types: [],
            backups: {
              offsite: true,
              where: 'S3 bucket berth-backups at https://s3.example.net',
              detail: null,
              sweep: {
                sweptAt: '2026-12-01T06:00:00.000Z',
                orphans: 2,
                missing: 1,
                removed: 1,
                graceDays: 7,
              },
            },
          },
        },
      },
      '/admin-panel?tab=server',
    );
    const title = await screen.findByText(/^Backup store swept /);
    const sweep = title.closest<HTMLElement>('[role="alert"]');
    if (!sweep) throw new Error('the sweep is not shown as an alert');
    expect(
      within(sweep).getByText(
        '2 places in the store no backup names (removed 7 days after they are found; 1 removed in this sweep)',
      ),
    ).toBeTruthy();
    expect(
      within(sweep).getByText('1 backup misses files in the store (their ids are in the server log)'),
    ).toBeTruthy();
  });

  it('warns admins when backups are not off-site, with what to set', async () => {
    const detail = 'Backups are NOT off-site: set BACKUP_S3_* to keep them in a bucket.';
    renderAdmin(
      {
        'GET /api/admin/capabilities': {
          body: {
            types: [],
            backups: {
              offsite: false,
              where: 'folder /srv/berth/backups on this machine (not off-site)',
              detail,
            },
          },
        },
      },
      '/admin-panel?tab=server',
    );
    const warning = await screen.findByRole('alert');
    expect(within(warning).getByText('Backups are not off-site')).toBeTruthy();
    expect(within(warning).getByText(detail)).toBeTruthy();
    expect(
      within(warning).getByText('Now: folder /srv/berth/backups on this machine (not off-site)'),
    ).toBeTruthy();
  });
});

describe('where instances run (Admin Panel → Server → Regions)', () => {
  /** The Server tab's capabilities: no type, backups off-site. */
  const NO_TYPES = {
    'GET /api/admin/capabilities': {
      body: { types: [], backups: { offsite: true, where: 'bucket berth-backups', detail: null } },
    },
  };
  const node = (over: Record<string, unknown>) => ({
    id: 'n1',
    hostname: 'euw1-m',
    role: 'manager',
    state: 'ready',
    availability: 'active',
    address: '10.0.0.2',
    labels: { region: 'eu-west-1' },
    memoryBytes: 8 * 1024 ** 3,
    memoryReservedBytes: 2 * 1024 ** 3,
    cpus: 4,
    cpusReserved: 1.5,
    instances: 2,
    ...over,
  });
  const region = (id: string, label: string, over: Record<string, unknown> = {}) => ({
    region: id,
    label,
    available: false,
    reason: 'No servers in this region yet',
    error: null,
    nodes: [],
    ...over,
  });

  it('shows each swarm region’s nodes with what they hold, and names the regions not offered', async () => {
    renderAdmin(
      {
        ...NO_TYPES,
        'GET /api/admin/regions': {
          body: {
            scheduler: 'swarm',
            regions: [
              region('us-east-1', 'US East (N. Virginia)', {
                available: false,
                reason: 'Instances cannot be placed in US East (N. Virginia) now',
                error: 'connect ECONNREFUSED /run/berth/use1.sock',
              }),
              region('eu-west-1', 'EU West (Ireland)', {
                available: true,
                reason: null,
                nodes: [
                  node({}),
                  node({ id: 'n2', hostname: 'euw1-w', role: 'worker', state: 'down', instances: 0 }),
                ],
              }),
              region('ap-south-1', 'AP South (Mumbai)'),
            ],
          },
        },
      },
      '/admin-panel?tab=server',
    );
    const eu = await screen.findByRole('listitem', { name: 'EU West (Ireland)' });
    expect(within(eu).getByText('Deploys here')).toBeTruthy();
    const rows = within(within(eu).getByRole('table', { name: 'Nodes of EU West (Ireland)' })).getAllByRole(
      'row',
    );
    expect(rows.map((row) => row.textContent)).toEqual([
      'NodeStateMemory reservedCPUs reservedInstancesActions',
      'euw1-mmanager · 10.0.0.2 · region=eu-west-1ready2 GB of 8 GB (25%)1.5 of 4 (38%)2',
      'euw1-wworker · 10.0.0.2 · region=eu-west-1down2 GB of 8 GB (25%)1.5 of 4 (38%)0',
    ]);
    const us = screen.getByRole('listitem', { name: 'US East (N. Virginia)' });
    expect(
      within(us).getByText('Its swarm manager could not be asked: connect ECONNREFUSED /run/berth/use1.sock'),
    ).toBeTruthy();
    expect(screen.queryByRole('listitem', { name: 'AP South (Mumbai)' })).toBeNull();
    expect(screen.getByText('Not offered to customers: AP South (Mumbai).')).toBeTruthy();
  });

  it('drains a worker after asking, and puts a drained one back in service', async () => {
    const worker = node({ id: 'w1', hostname: 'euw1-w', role: 'worker', instances: 3 });
    const app = renderAdmin(
      {
        ...NO_TYPES,
        'GET /api/admin/regions': {
          body: {
            scheduler: 'swarm',
            regions: [
              region('eu-west-1', 'EU West (Ireland)', {
                available: true,
                reason: null,
                nodes: [
                  node({}),
                  worker,
                  node({
                    id: 'w2',
                    hostname: 'euw1-x',
                    role: 'worker',
                    labels: { region: 'eu-west-1', 'berth.draining': '2026-11-28T08:00:00Z' },
                    instances: 0,
                  }),
                  node({
                    id: 'w3',
                    hostname: 'euw1-y',
                    role: 'worker',
                    state: 'down',
                    availability: 'drain',
                    labels: { region: 'eu-west-1', 'berth.lost': '2026-11-28T08:00:00Z' },
                    instances: 0,
                  }),
                ],
              }),
            ],
          },
        },
        'POST /api/admin/regions/nodes/w1/drain': {
          status: 202,
          body: { moving: 3, message: 'Drained: 3 instances are being moved to other servers' },
        },
        'POST /api/admin/regions/nodes/w2/activate': {
          body: { message: 'Back in service: new instances may be placed on it' },
        },
      },
      '/admin-panel?tab=server',
    );
    const table = await screen.findByRole('table', { name: 'Nodes of EU West (Ireland)' });
    const [, managerRow, workerRow, drainedRow, lostRow] = within(table).getAllByRole('row');
    // A lost server says so, and offers nothing: its instances came back elsewhere.
    expect(within(lostRow as HTMLElement).getByText('lost')).toBeTruthy();
    expect(within(lostRow as HTMLElement).queryByRole('button')).toBeNull();
    // The manager runs the front door: it has no drain.
    expect(within(managerRow as HTMLElement).queryByRole('button')).toBeNull();
    within(workerRow as HTMLElement)
      .getByRole('button', { name: 'Drain' })
      .click();
    const dialog = await screen.findByRole('dialog', { name: 'Drain euw1-w?' });
    expect(dialog.textContent).toContain('each of its 3 instances is moved with all its data');
    expect(app.api.calls('POST /api/admin/regions/nodes/w1/drain')).toHaveLength(0);
    within(dialog).getByRole('button', { name: 'Drain' }).click();
    expect(await toast('Drained: 3 instances are being moved to other servers')).toBeTruthy();
    expect(app.api.calls('POST /api/admin/regions/nodes/w1/drain')).toHaveLength(1);
    expect(within(drainedRow as HTMLElement).getByText('drained')).toBeTruthy();
    within(drainedRow as HTMLElement)
      .getByRole('button', { name: 'Put back in service' })
      .click();
    expect(await toast('Back in service: new instances may be placed on it')).toBeTruthy();
  });

  it('says a one-host install runs every instance on this server', async () => {
    renderAdmin(
      {
        ...NO_TYPES,
        'GET /api/admin/regions': {
          body: {
            scheduler: 'this-host',
            regions: [
              region('us-east-1', 'US East (N. Virginia)', { available: true, reason: null }),
              region('eu-west-1', 'EU West (Ireland)', {
                reason: 'This server runs instances in US East (N. Virginia) only',
              }),
            ],
          },
        },
      },
      '/admin-panel?tab=server',
    );
    const us = await screen.findByRole('listitem', { name: 'US East (N. Virginia)' });
    expect(within(us).getByText('Every instance runs on the server that answers this page.')).toBeTruthy();
    expect(screen.getByText('Not offered to customers: EU West (Ireland).')).toBeTruthy();
  });

  it('shows the region LOCAL_REGION chose for a one-host install', async () => {
    renderAdmin(
      {
        ...NO_TYPES,
        'GET /api/admin/regions': {
          body: {
            scheduler: 'this-host',
            regions: [
              region('us-east-1', 'US East (N. Virginia)', {
                reason: 'This server runs instances in EU West (Ireland) only',
              }),
              region('eu-west-1', 'EU West (Ireland)', { available: true, reason: null }),
            ],
          },
        },
      },
      '/admin-panel?tab=server',
    );
    const eu = await screen.findByRole('listitem', { name: 'EU West (Ireland)' });
    expect(within(eu).getByText('eu-west-1')).toBeTruthy();
    expect(within(eu).getByText('Deploys here')).toBeTruthy();
    expect(
      screen.getByText(
        'The region this server runs instances in: LOCAL_REGION on the server (us-east-1 when unset) chooses it.',
      ),
    ).toBeTruthy();
    expect(screen.queryByRole('listitem', { name: 'US East (N. Virginia)' })).toBeNull();
    expect(screen.getByText('Not offered to customers: US East (N. Virginia).')).toBeTruthy();
  });
});

describe('payment settings', () => {
  it('loads the settings with the status of each method', async () => {
    renderAdmin();
    const form = await settingsForm();
    await within(form).findByText('Stripe');
    expect(within(form).getByRole('combobox', { name: 'Currency' }).textContent).toBe('USD ($)');
    expect((within(form).getByLabelText('Starter (per month)') as HTMLInputElement).value).toBe('3.99');
    expect((within(form).getByLabelText('Pro (per month)') as HTMLInputElement).value).toBe('19.99');
    expect((within(form).getByRole('switch', { name: 'Stripe' }) as HTMLInputElement).checked).toBe(true);
    expect((within(form).getByRole('switch', { name: 'MetaMask' }) as HTMLInputElement).checked).toBe(false);
    expect(within(form).getByLabelText('Stripe: Available')).toBeTruthy();
    expect(within(form).getByLabelText('PayPal Business: Needs keys')).toBeTruthy();
    expect(within(form).getByLabelText('MetaMask: Needs keys')).toBeTruthy();
    expect(
      within(form).getAllByText(
        'Set PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET and PAYPAL_WEBHOOK_ID on the server to offer PayPal Business.',
      ),
    ).toHaveLength(1);
    expect(within(form).getByText('Set a receiver address below to offer MetaMask.')).toBeTruthy();
    expect(
      within(form).getByText(/zero-value transaction to this address: it proves intent, not payment/),
    ).toBeTruthy();
  });

  it('shows Off for a configured method that is switched off', async () => {
    renderAdmin({
      'GET /api/admin/payment-settings': {
        body: adminPaymentSettings({
          methods: {
            ...adminPaymentSettings().methods,
            stripe: { enabled: false, configured: true, available: false },
          },
        }),
      },
    });
    const form = await settingsForm();
    expect(await within(form).findByLabelText('Stripe: Off')).toBeTruthy();
  });

  it('saves every field and says so', async () => {
    const saved = adminPaymentSettings({
      currency: 'EUR',
      prices: { starter: 4.5, pro: 19.99, addonInstance: 3.99 },
      methods: {
        ...adminPaymentSettings().methods,
        metamask: {
          enabled: true,
          configured: true,
          available: true,
          receiverAddress: RECEIVER,
          chainId: '0x89',
        },
      },
    });
    const app = renderAdmin({ 'PUT /api/admin/payment-settings': { body: saved } });
    const form = await settingsForm();
    await within(form).findByText('Stripe');

    await app.user.click(within(form).getByRole('combobox', { name: 'Currency' }));
    await app.user.click(screen.getByRole('option', { name: 'EUR (€)' }));
    const starter = within(form).getByLabelText('Starter (per month)');
    await app.user.clear(starter);
    await app.user.type(starter, '4.5');
    await app.user.click(within(form).getByRole('switch', { name: 'MetaMask' }));
    // Pasted, as an admin copies an address from their wallet (typing 42 keys re-renders the form 42 times).
    await app.user.click(within(form).getByLabelText(/Receiver address/));
    await app.user.paste(RECEIVER);
    await app.user.click(within(form).getByRole('combobox', { name: 'Network' }));
    await app.user.click(screen.getByRole('option', { name: 'Polygon · 0x89' }));
    await app.user.click(within(form).getByRole('button', { name: 'Save' }));

    expect(await toast('Payment settings saved')).toBeTruthy();
    expect(app.api.calls('PUT /api/admin/payment-settings')[0]?.body).toEqual({
      currency: 'EUR',
      prices: { starter: 4.5, pro: 19.99, addonInstance: 3.99 },
      backupDays: { starter: 7, pro: 30 },
      methods: {
        stripe: { enabled: true },
        paypalBusiness: { enabled: false },
        paypalStandard: { enabled: true },
        metamask: { enabled: true, receiverAddress: RECEIVER, chainId: '0x89' },
      },
    });
    expect(await within(form).findByLabelText('MetaMask: Available')).toBeTruthy();
  });

  it('refuses a receiver address that is not 0x + 40 hex characters, and sends nothing', async () => {
    const app = renderAdmin();
    const form = await settingsForm();
    await within(form).findByText('Stripe');
    await app.user.type(within(form).getByLabelText(/Receiver address/), '0x1234');
    await app.user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(
      await within(form).findByText('Receiver address must be 0x followed by 40 hex characters'),
    ).toBeTruthy();
    expect(app.api.calls('PUT /api/admin/payment-settings')).toHaveLength(0);
  });

  it('changes how many days each plan keeps backups, within 1 to 365', async () => {
    const saved = adminPaymentSettings({ backupDays: { starter: 14, pro: 30 } });
    const app = renderAdmin({ 'PUT /api/admin/payment-settings': { body: saved } });
    const form = await settingsForm();
    await within(form).findByText('Stripe');
    const starter = within(form).getByLabelText('Starter keeps backups (days)') as HTMLInputElement;
    expect(starter.value).toBe('7');
    expect((within(form).getByLabelText('Pro keeps backups (days)') as HTMLInputElement).value).toBe('30');
    await app.user.clear(starter);
    await app.user.type(starter, '400');
    await app.user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByText('Backups are kept at most 365 days')).toBeTruthy();
    expect(app.api.calls('PUT /api/admin/payment-settings')).toHaveLength(0);

    await app.user.clear(starter);
    await app.user.type(starter, '14');
    await app.user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await toast('Payment settings saved')).toBeTruthy();
    expect(app.api.calls('PUT /api/admin/payment-settings')[0]?.body).toMatchObject({
      backupDays: { starter: 14, pro: 30 },
    });
  });

  it('refuses an empty price', async () => {
    const app = renderAdmin();
    const form = await settingsForm();
    await within(form).findByText('Stripe');
    await app.user.clear(within(form).getByLabelText('Pro (per month)'));
    await app.user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByText('Enter a price')).toBeTruthy();
    expect(app.api.calls('PUT /api/admin/payment-settings')).toHaveLength(0);
  });

  it("shows the server's message when saving fails", async () => {
    const app = renderAdmin({
      'PUT /api/admin/payment-settings': {
        status: 400,
        body: apiError('MetaMask needs a receiver address before it can be enabled'),
      },
    });
    const form = await settingsForm();
    await within(form).findByText('Stripe');
    await app.user.click(within(form).getByRole('switch', { name: 'MetaMask' }));
    await app.user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await toast('MetaMask needs a receiver address before it can be enabled')).toBeTruthy();
    expect((within(form).getByRole('switch', { name: 'MetaMask' }) as HTMLInputElement).checked).toBe(true);
  });

  it('offers Retry when the settings fail to load', async () => {
    const app = renderAdmin({
      'GET /api/admin/payment-settings': {
        status: 403,
        body: apiError('Admin access required', 'forbidden'),
      },
    });
    const alert = await screen.findByText('Admin access required');
    app.api.on({ 'GET /api/admin/payment-settings': { body: adminPaymentSettings() } });
    await app.user.click(
      within(alert.closest('.MuiAlert-root') as HTMLElement).getByRole('button', { name: 'Retry' }),
    );
    expect(await settingsForm()).toBeTruthy();
  });
});

describe('MetaMask payments to review', () => {
  it('lists the order with its transaction, explorer link, copy button and check', async () => {
    const app = renderAdmin({
      'GET /api/admin/payments/metamask': {
        body: metamaskOrderList([
          metamaskOrder({
            verificationState: 'problems',
            verificationNote: '2 problems found',
            verification: {
              checkedAt: '2026-11-20T10:05:00.000Z',
              ok: false,
              confirmations: 3,
              requiredConfirmations: 12,
              problems: ['The transaction went to another address'],
              waiting: null,
            },
          }),
          metamaskOrder({
            id: '7a000000-0000-4000-8000-000000000002',
            status: 'completed',
            chainId: '0x89',
            kind: 'addon_instance',
            plan: 'starter',
            txHash: `0x${'cd'.repeat(32)}`,
          }),
        ]),
      },
    });
    const section = await metamaskSection();
    const table = await within(section).findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['User', 'Plan', 'Amount', 'Transaction', 'On-chain check', 'Status', 'Actions']);
    const [, first, second] = within(table).getAllByRole('row');
    if (!first || !second) throw new Error('two rows expected');
    expect(within(first).getByText('grace')).toBeTruthy();
    expect(within(first).getByText('Pro · monthly')).toBeTruthy();
    expect(within(first).getByText('$19.99')).toBeTruthy();
    expect(within(first).getByText('Problems found')).toBeTruthy();
    expect(within(first).getByText('The transaction went to another address')).toBeTruthy();
    const link = within(first).getByRole('link', { name: /Open transaction 0xababab…ababab/ });
    expect(link.getAttribute('href')).toBe(`https://sepolia.etherscan.io/tx/${TX_HASH}`);
    await app.user.click(link);
    expect(app.externalUrls).toEqual([`https://sepolia.etherscan.io/tx/${TX_HASH}`]);
    expect(
      within(second)
        .getByRole('link', { name: /Open transaction/ })
        .getAttribute('href'),
    ).toBe(`https://polygonscan.com/tx/0x${'cd'.repeat(32)}`);
    expect(within(second).getByText('Additional instance · monthly')).toBeTruthy();
    // A completed order has no actions left.
    expect(within(second).queryByRole('button', { name: 'Approve' })).toBeNull();

    await app.user.click(within(first).getByRole('button', { name: 'Copy transaction hash' }));
    expect(await toast('Transaction hash copied to clipboard')).toBeTruthy();
    expect(await navigator.clipboard.readText()).toBe(TX_HASH);
    expect(
      within(section).getByText(/it proves that the wallet owner meant to order, not that money was paid/),
    ).toBeTruthy();
  });

  it('approves after a confirmation and refreshes the list', async () => {
    const approved = metamaskOrder({ status: 'completed' });
    const app = renderAdmin({
      [`POST /api/admin/payments/metamask/${approved.id}/approve`]: { body: approved },
    });
    const section = await metamaskSection();
    await app.user.click(await within(section).findByRole('button', { name: 'Approve' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve this payment?' });
    expect(within(dialog).getByText(/grace gets Pro · monthly at once/)).toBeTruthy();
    app.api.on({ 'GET /api/admin/payments/metamask': { body: metamaskOrderList([approved]) } });
    await app.user.click(within(dialog).getByRole('button', { name: 'Approve payment' }));
    expect(await toast('Payment approved')).toBeTruthy();
    expect(app.api.calls(`POST /api/admin/payments/metamask/${approved.id}/approve`)).toHaveLength(1);
    await waitFor(() => expect(within(section).getByText('Approved')).toBeTruthy());
    expect(within(section).queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it("keeps the dialog open with the server's 409 message", async () => {
    const order = metamaskOrder();
    const app = renderAdmin({
      [`POST /api/admin/payments/metamask/${order.id}/approve`]: {
        status: 409,
        body: apiError('This payment was already rejected.', 'conflict'),
      },
    });
    const section = await metamaskSection();
    await app.user.click(await within(section).findByRole('button', { name: 'Approve' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve this payment?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Approve payment' }));
    expect(await within(dialog).findByText('This payment was already rejected.')).toBeTruthy();
  });

  it('rejects with an optional reason', async () => {
    const order = metamaskOrder();
    const app = renderAdmin({
      [`POST /api/admin/payments/metamask/${order.id}/reject`]: { body: { ...order, status: 'rejected' } },
    });
    const section = await metamaskSection();
    await app.user.click(await within(section).findByRole('button', { name: 'Reject' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject this payment?' });
    await app.user.type(within(dialog).getByLabelText('Reason'), 'No payment arrived');
    await app.user.click(within(dialog).getByRole('button', { name: 'Reject payment' }));
    expect(await toast('Payment rejected')).toBeTruthy();
    expect(app.api.calls(`POST /api/admin/payments/metamask/${order.id}/reject`)[0]?.body).toEqual({
      reason: 'No payment arrived',
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('rejects without a reason', async () => {
    const order = metamaskOrder();
    const app = renderAdmin({
      [`POST /api/admin/payments/metamask/${order.id}/reject`]: { body: { ...order, status: 'rejected' } },
    });
    const section = await metamaskSection();
    await app.user.click(await within(section).findByRole('button', { name: 'Reject' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject this payment?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Reject payment' }));
    expect(await toast('Payment rejected')).toBeTruthy();
    expect(app.api.calls(`POST /api/admin/payments/metamask/${order.id}/reject`)[0]?.body).toEqual({});
  });

  it('verifies on chain now and shows what it found', async () => {
    const order = metamaskOrder();
    const checked = metamaskOrder({
      status: 'verified',
      verificationState: 'verified',
      verificationNote: '12 of 12 confirmations',
    });
    const app = renderAdmin({ [`POST /api/admin/payments/metamask/${order.id}/verify`]: { body: checked } });
    const section = await metamaskSection();
    app.api.on({ 'GET /api/admin/payments/metamask': { body: metamaskOrderList([checked]) } });
    await app.user.click(await within(section).findByRole('button', { name: 'Verify now' }));
    expect(await toast('Transaction checked: Verified on chain')).toBeTruthy();
    expect(await within(section).findByText('12 of 12 confirmations')).toBeTruthy();
  });

  it("shows the server's message when the check fails", async () => {
    const order = metamaskOrder();
    const app = renderAdmin({
      [`POST /api/admin/payments/metamask/${order.id}/verify`]: {
        status: 502,
        body: apiError('The Ethereum RPC did not answer. Please try again later.', 'provider_error'),
      },
    });
    const section = await metamaskSection();
    await app.user.click(await within(section).findByRole('button', { name: 'Verify now' }));
    expect(await toast('The Ethereum RPC did not answer. Please try again later.')).toBeTruthy();
  });

  it('offers no Verify now while on-chain checks are off', async () => {
    renderAdmin({
      'GET /api/admin/payments/metamask': { body: metamaskOrderList([metamaskOrder()], false) },
    });
    const section = await metamaskSection();
    expect(await within(section).findByRole('button', { name: 'Approve' })).toBeTruthy();
    expect(within(section).queryByRole('button', { name: 'Verify now' })).toBeNull();
    expect(within(section).getByText(/On-chain checks are off/)).toBeTruthy();
  });

  it('filters by status and says when there is nothing to review', async () => {
    const app = renderAdmin({ 'GET /api/admin/payments/metamask': { body: metamaskOrderList([]) } });
    const section = await metamaskSection();
    expect(await within(section).findByText('No MetaMask payments to review.')).toBeTruthy();
    await app.user.click(within(section).getByRole('combobox', { name: 'Status' }));
    await app.user.click(screen.getByRole('option', { name: 'Rejected' }));
    await waitFor(() =>
      expect(app.api.calls('GET /api/admin/payments/metamask').map((call) => call.search)).toContain(
        '?status=rejected',
      ),
    );
  });
});

describe('users', () => {
  const openUsers = async (api: FakeRoutes = {}) => {
    const app = renderAdmin(api, '/admin-panel?tab=users');
    const section = await screen.findByRole('region', { name: 'Users' });
    return { app, section };
  };

  it('lists users with plan, standing and instances', async () => {
    const { section } = await openUsers({
      'GET /api/admin/users': {
        body: adminUserList([
          adminUser(),
          adminUser({
            id: '5f0c6a1e-3b43-4c8e-9a57-0d4a8c1f2b12',
            username: 'linus',
            email: 'linus@example.com',
            plan: 'pro',
            standing: 'active',
            instancesUsed: 4,
          }),
        ]),
      },
    });
    const table = await within(section).findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['Username', 'Email', 'Plan', 'Standing', 'Instances', 'Actions']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(
      rows.map((row) =>
        within(row)
          .getAllByRole('cell')
          .slice(0, 5)
          .map((cell) => cell.textContent),
      ),
    ).toEqual([
      ['grace', 'grace@example.com', 'Free', 'Trial', '1'],
      ['linus', 'linus@example.com', 'Pro', 'Active', '4'],
    ]);
    // Nothing to revoke on a trial.
    expect(within(rows[0] as HTMLElement).queryByRole('button', { name: 'Revoke plan' })).toBeNull();
  });

  it('searches by username or email', async () => {
    const { app, section } = await openUsers();
    await within(section).findByRole('table');
    await app.user.type(within(section).getByRole('searchbox', { name: 'Search users' }), ' Lin ');
    await waitFor(() =>
      expect(app.api.calls('GET /api/admin/users').map((call) => call.search)).toContain(
        '?page=1&limit=20&search=Lin',
      ),
    );
  });

  it('grants a plan for a period', async () => {
    const user = adminUser();
    const { app, section } = await openUsers({ [`POST /api/admin/users/${user.id}/plan`]: { body: {} } });
    await app.user.click(await within(section).findByRole('button', { name: 'Grant plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Grant a plan to grace' });
    await app.user.click(within(dialog).getByRole('radio', { name: 'Starter' }));
    await app.user.click(within(dialog).getByRole('radio', { name: 'One year' }));
    app.api.on({
      'GET /api/admin/users': { body: adminUserList([{ ...user, plan: 'starter', standing: 'active' }]) },
    });
    await app.user.click(within(dialog).getByRole('button', { name: 'Grant plan' }));
    expect(await toast('Starter granted to grace for one year')).toBeTruthy();
    expect(app.api.calls(`POST /api/admin/users/${user.id}/plan`)[0]?.body).toEqual({
      plan: 'starter',
      billingCycle: 'yearly',
    });
    expect(await within(section).findByText('Starter')).toBeTruthy();
  });

  it("shows the server's 409 message in the grant dialog", async () => {
    const user = adminUser({ instancesUsed: 3 });
    const message = 'grace runs 3 instances; Starter allows 1. They must delete some first.';
    const { app, section } = await openUsers({
      'GET /api/admin/users': { body: adminUserList([user]) },
      [`POST /api/admin/users/${user.id}/plan`]: { status: 409, body: apiError(message, 'conflict') },
    });
    await app.user.click(await within(section).findByRole('button', { name: 'Grant plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Grant a plan to grace' });
    await app.user.click(within(dialog).getByRole('radio', { name: 'Starter' }));
    await app.user.click(within(dialog).getByRole('button', { name: 'Grant plan' }));
    expect(await within(dialog).findByText(message)).toBeTruthy();
  });

  it('revokes a plan after a confirmation', async () => {
    const user = adminUser({ plan: 'pro', standing: 'active' });
    const { app, section } = await openUsers({
      'GET /api/admin/users': { body: adminUserList([user]) },
      [`DELETE /api/admin/users/${user.id}/plan`]: { body: {} },
    });
    await app.user.click(await within(section).findByRole('button', { name: 'Revoke plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke the plan of grace?' });
    app.api.on({
      'GET /api/admin/users': { body: adminUserList([{ ...user, plan: 'free', standing: 'inactive' }]) },
    });
    await app.user.click(within(dialog).getByRole('button', { name: 'Revoke plan' }));
    expect(await toast('Plan revoked for grace')).toBeTruthy();
    expect(app.api.calls(`DELETE /api/admin/users/${user.id}/plan`)).toHaveLength(1);
    expect(await within(section).findByText('Inactive')).toBeTruthy();
  });
});

describe('affiliate payouts', () => {
  const payout = {
    id: '7d1c2b3a-0000-4000-8000-000000000042',
    amount: 60,
    currency: 'USD',
    status: 'pending' as const,
    method: 'paypal',
    transactionId: null,
    failureReason: null,
    createdAt: '2026-11-20T10:00:00.000Z',
    requestedAt: '2026-11-20T10:00:00.000Z',
    processedAt: null,
    affiliate: {
      id: '5a0c2d4e-0000-4000-8000-000000000013',
      userId: '5a0c2d4e-0000-4000-8000-000000000014',
      referralCode: 'KATHY123',
      username: 'katherine',
      email: 'katherine@example.com',
    },
    paymentMethod: 'paypal' as const,
    paypalEmail: 'payouts@example.com',
    bankDetails: null,
    cryptoWallet: null,
  };

  it('lists pending requests with where to pay; completing records the transaction id', async () => {
    const app = renderAdmin(
      {
        'GET /api/admin/affiliate-payouts': { body: { items: [payout] } },
        [`POST /api/admin/affiliate-payouts/${payout.id}/complete`]: {
          body: {
            ...payout,
            status: 'completed',
            transactionId: 'PP-TX-9',
            processedAt: '2026-11-21T10:00:00.000Z',
          },
        },
      },
      '/admin-panel?tab=affiliates',
    );
    const table = await screen.findByRole('table', { name: 'Affiliate payout requests' });
    expect(within(table).getByText('PayPal: payouts@example.com')).toBeTruthy();
    expect(within(table).getByText('$60.00')).toBeTruthy();
    await app.user.click(within(table).getByRole('button', { name: 'Complete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Complete payout' });
    const confirm = within(dialog).getByRole('button', { name: 'Mark Completed' });
    expect(confirm.hasAttribute('disabled')).toBe(true);
    await app.user.type(within(dialog).getByLabelText('Transaction ID'), 'PP-TX-9');
    await app.user.click(confirm);
    expect(await toast('Payout marked as completed')).toBeTruthy();
    expect(app.api.calls(`POST /api/admin/affiliate-payouts/${payout.id}/complete`)[0]?.body).toEqual({
      transactionId: 'PP-TX-9',
    });
  });
});
