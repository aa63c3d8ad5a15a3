import { DATABASE_PASSWORD_MESSAGE } from '@berth/openapi/rules';
import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, databaseAccess, instanceList, makeInstance } from '../../../test/fixtures.ts';
import { renderInstances } from '../../../test/instances.ts';
import { DATABASE_PASSWORD_LENGTH } from './generate-password.ts';
import { CREDENTIAL_ATTEMPTS, CREDENTIAL_RETRY_MS, CREDENTIAL_TEXTS } from './use-credentials-polling.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const orders = makeInstance({ name: 'Orders DB' });
const ACCESS = `GET /api/instances/${orders.id}/access`;
const PASSWORD = `POST /api/instances/${orders.id}/password`;
const DELETE = `DELETE /api/instances/${orders.id}`;

function renderOrders(api: FakeRoutes = {}) {
  return renderInstances({ 'GET /api/instances': { body: instanceList([orders]) }, ...api });
}

async function openDialog(app: ReturnType<typeof renderOrders>, button: string, title: string) {
  const article = await screen.findByRole('article', { name: 'Orders DB' });
  await app.user.click(within(article).getByRole('button', { name: button }));
  return screen.findByRole('dialog', { name: title });
}

const openCredentials = (app: ReturnType<typeof renderOrders>) =>
  openDialog(app, 'Credentials of Orders DB', 'Database Credentials');
const openPassword = (app: ReturnType<typeof renderOrders>) =>
  openDialog(app, 'Change password of Orders DB', 'Change Database Password');
const openDelete = (app: ReturnType<typeof renderOrders>) =>
  openDialog(app, 'Delete Orders DB', 'Delete instance?');

const elapse = (ms: number) =>
  act(async () => {
    vi.advanceTimersByTime(ms);
  });

describe('Database Credentials: a server that requires TLS', () => {
  const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const tls = { required: true, caCertificate: CA, caFileName: 'berth-ca.pem' };

  it('offers the CA certificate as a download and the mysql command that verifies the server', async () => {
    const app = renderOrders({
      [ACCESS]: { body: databaseAccess({ host: 'db.example.com', port: 20001, tls }) },
    });
    const created: Blob[] = [];
    const { createObjectURL, revokeObjectURL } = URL;
    URL.createObjectURL = (blob: Blob) => {
      created.push(blob);
      return 'blob:ca';
    };
    URL.revokeObjectURL = () => {};
    const saved: string[] = [];
    // jsdom cannot follow the link: the click is recorded (the file name) instead.
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    try {
      const dialog = await openCredentials(app);
      const section = await within(dialog).findByRole('region', { name: 'Secure connection' });
      expect(within(section).getByText(/accepts encrypted connections only/)).toBeTruthy();
      await app.user.click(
        within(section).getByRole('button', { name: 'Download CA certificate (berth-ca.pem)' }),
      );
      expect(saved).toEqual(['berth-ca.pem']);
      expect(await created[0]?.text()).toBe(CA);
      expect(within(section).getByText('Connect from a terminal').nextSibling?.textContent).toBe(
        'mysql --host=db.example.com --port=20001 --user=u_orders --password --ssl --ssl-ca=berth-ca.pem --ssl-verify-server-cert t_orders',
      );
    } finally {
      URL.createObjectURL = createObjectURL;
      URL.revokeObjectURL = revokeObjectURL;
    }
  });

  it("opens the instance's phpMyAdmin from the dialog when it has one", async () => {
    const phpmyadmin = 'http://pma-3f2a1b4c5d6e.sites.example.com/';
    const app = renderOrders({ [ACCESS]: { body: databaseAccess({ tls, phpmyadmin }) } });
    const dialog = await openCredentials(app);
    await app.user.click(await within(dialog).findByRole('button', { name: 'Open phpMyAdmin' }));
    expect(app.externalUrls).toEqual([phpmyadmin]);
  });

  it('says nothing of TLS for a database on a shared server', async () => {
    const app = renderOrders({ [ACCESS]: { body: databaseAccess() } });
    const dialog = await openCredentials(app);
    await within(dialog).findByText(CREDENTIAL_TEXTS.ready);
    expect(within(dialog).queryByRole('region', { name: 'Secure connection' })).toBeNull();
    expect(within(dialog).queryByRole('button', { name: 'Open phpMyAdmin' })).toBeNull();
  });
});

describe('Database Credentials: polling', () => {
  it("polls every 2 s while preparing, then shows 'Credentials retrieved' and the details", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let answers = 0;
    const app = renderOrders({
      [ACCESS]: () =>
        ++answers < 3
          ? { status: 202, body: { message: 'Preparing credentials... This may take a moment.' } }
          : { body: databaseAccess() },
    });
    const dialog = await openCredentials(app);
    expect(await within(dialog).findByText(CREDENTIAL_TEXTS.preparing)).toBeTruthy();
    expect(app.api.calls(ACCESS)).toHaveLength(1);

    await elapse(CREDENTIAL_RETRY_MS);
    await waitFor(() => expect(app.api.calls(ACCESS)).toHaveLength(2));
    expect(within(dialog).getByText(CREDENTIAL_TEXTS.preparing)).toBeTruthy();

    await elapse(CREDENTIAL_RETRY_MS);
    expect(await within(dialog).findByText(CREDENTIAL_TEXTS.ready)).toBeTruthy();
    const value = (label: string) => within(dialog).getByText(label).nextSibling?.textContent;
    expect(value('Host')).toBe('127.0.0.1');
    expect(value('Port')).toBe('3306');
    expect(value('Database')).toBe('t_orders');
    expect(value('Username')).toBe('u_orders');
    // Masked until shown.
    expect(within(dialog).queryByText('S3cret-Pass_word')).toBeNull();
    await app.user.click(within(dialog).getByRole('button', { name: 'Show password' }));
    expect(within(dialog).getByText('S3cret-Pass_word')).toBeTruthy();

    await elapse(5 * CREDENTIAL_RETRY_MS);
    expect(app.api.calls(ACCESS)).toHaveLength(3);
  });

  it(`gives up after ${CREDENTIAL_ATTEMPTS} attempts: 'Credentials not ready yet', then tries again on request`, async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderOrders({ [ACCESS]: { status: 202, body: { message: 'Preparing' } } });
    const dialog = await openCredentials(app);
    await within(dialog).findByText(CREDENTIAL_TEXTS.preparing);
    for (let attempt = 2; attempt <= CREDENTIAL_ATTEMPTS; attempt++) {
      await elapse(CREDENTIAL_RETRY_MS);
      await waitFor(() => expect(app.api.calls(ACCESS)).toHaveLength(attempt));
    }
    expect(await within(dialog).findByText(CREDENTIAL_TEXTS.notReady)).toBeTruthy();
    await elapse(3 * CREDENTIAL_RETRY_MS);
    expect(app.api.calls(ACCESS)).toHaveLength(CREDENTIAL_ATTEMPTS);

    app.api.on({ [ACCESS]: { body: databaseAccess() } });
    await app.user.click(within(dialog).getByRole('button', { name: 'Try again' }));
    expect(await within(dialog).findByText(CREDENTIAL_TEXTS.ready)).toBeTruthy();
  });

  it("says 'Credentials not ready yet' for a 200 without credentials", async () => {
    const app = renderOrders({
      [ACCESS]: {
        body: { database: { host: '', port: 0, name: '', user: '', password: '', connectionString: '' } },
      },
    });
    const dialog = await openCredentials(app);
    expect(await within(dialog).findByText(CREDENTIAL_TEXTS.notReady)).toBeTruthy();
    expect(app.api.calls(ACCESS)).toHaveLength(1);
  });

  it("says 'Failed to fetch credentials' on any other answer, and stops", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const app = renderOrders({
      [ACCESS]: { status: 409, body: apiError('No credentials: deploy failed', 'conflict') },
    });
    const dialog = await openCredentials(app);
    expect(await within(dialog).findByText(CREDENTIAL_TEXTS.failed)).toBeTruthy();
    await elapse(3 * CREDENTIAL_RETRY_MS);
    expect(app.api.calls(ACCESS)).toHaveLength(1);
  });
});

describe('copy to clipboard', () => {
  it("copies a detail: '{label} copied to clipboard'", async () => {
    const write = vi.spyOn(navigator.clipboard, 'writeText');
    const app = renderOrders({ [ACCESS]: { body: databaseAccess() } });
    const dialog = await openCredentials(app);
    await within(dialog).findByText(CREDENTIAL_TEXTS.ready);
    await app.user.click(within(dialog).getByRole('button', { name: 'Copy password' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Password copied to clipboard');
    expect(write).toHaveBeenCalledWith('S3cret-Pass_word');
    await app.user.click(within(dialog).getByRole('button', { name: 'Copy connection string' }));
    expect(await screen.findByText('Connection String copied to clipboard')).toBeTruthy();
  });

  it("says 'Failed to copy to clipboard' when the browser refuses", async () => {
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(
      new DOMException('Denied', 'NotAllowedError'),
    );
    const app = renderOrders({ [ACCESS]: { body: databaseAccess() } });
    const dialog = await openCredentials(app);
    await within(dialog).findByText(CREDENTIAL_TEXTS.ready);
    await app.user.click(within(dialog).getByRole('button', { name: 'Copy host' }));
    expect(await screen.findByText('Failed to copy to clipboard')).toBeTruthy();
  });
});

describe('Change Database Password', () => {
  it("refuses different passwords with 'Passwords do not match', and short ones with the server's rule", async () => {
    const app = renderOrders();
    const dialog = await openPassword(app);
    await app.user.type(within(dialog).getByLabelText('New Password'), 'Abcdefgh1!');
    await app.user.type(within(dialog).getByLabelText('Confirm Password'), 'Abcdefgh2!');
    await app.user.click(within(dialog).getByRole('button', { name: 'Change Password' }));
    expect(await within(dialog).findByText('Passwords do not match')).toBeTruthy();

    await app.user.clear(within(dialog).getByLabelText('New Password'));
    await app.user.type(within(dialog).getByLabelText('New Password'), 'short');
    expect(await within(dialog).findByText(DATABASE_PASSWORD_MESSAGE)).toBeTruthy();
    expect(app.api.calls(PASSWORD)).toHaveLength(0);
  });

  it('generates an 18-character password, inserts it and sets it', async () => {
    const write = vi.spyOn(navigator.clipboard, 'writeText');
    const app = renderOrders({ [PASSWORD]: { body: { message: 'MySQL password updated' } } });
    const dialog = await openPassword(app);
    await app.user.click(within(dialog).getByRole('button', { name: 'Generate Strong Password' }));
    expect(await screen.findByText('Generated a strong password')).toBeTruthy();
    const generated = within(dialog).getByTestId('generated-password').textContent ?? '';
    expect(generated).toHaveLength(DATABASE_PASSWORD_LENGTH);
    for (const kind of [/[A-Z]/, /[a-z]/, /\d/, /[^A-Za-z0-9]/]) expect(generated).toMatch(kind);

    await app.user.click(within(dialog).getByRole('button', { name: 'Copy' }));
    expect(write).toHaveBeenCalledWith(generated);
    await app.user.click(within(dialog).getByRole('button', { name: 'Regenerate' }));
    const regenerated = within(dialog).getByTestId('generated-password').textContent ?? '';
    expect(regenerated).not.toBe(generated);

    await app.user.click(within(dialog).getByRole('button', { name: 'Use Password' }));
    expect(await screen.findByText('Password inserted')).toBeTruthy();
    expect(within(dialog).getByLabelText('New Password')).toHaveProperty('value', regenerated);
    expect(within(dialog).getByLabelText('Confirm Password')).toHaveProperty('value', regenerated);

    await app.user.click(within(dialog).getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('MySQL password updated')).toBeTruthy();
    expect(app.api.calls(PASSWORD)[0]?.body).toEqual({ type: 'MySQL', password: regenerated });
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Change Database Password' })).toBeNull(),
    );
  });

  it.each([
    [500, undefined, 'Failed to change database password'],
    [
      403,
      apiError('Subscription inactive — changing passwords is disabled.', 'subscription_inactive'),
      'Subscription inactive — changing passwords is disabled.',
    ],
  ])('shows the failure (%i) and keeps the dialog open', async (status, body, message) => {
    const app = renderOrders({ [PASSWORD]: { status, body } });
    const dialog = await openPassword(app);
    await app.user.type(within(dialog).getByLabelText('New Password'), 'Abcdefgh1!');
    await app.user.type(within(dialog).getByLabelText('Confirm Password'), 'Abcdefgh1!');
    await app.user.click(within(dialog).getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText(message)).toBeTruthy();
    expect(screen.getByRole('dialog', { name: 'Change Database Password' })).toBeTruthy();
  });
});

describe("'Delete instance?'", () => {
  it('asks, cannot be closed while deleting, then says so and stays on /instances', async () => {
    let answer: (value: { status: number; body: unknown }) => void = () => {};
    const app = renderOrders({
      [DELETE]: () =>
        new Promise((resolve) => {
          answer = resolve;
        }),
    });
    const dialog = await openDelete(app);
    expect(
      within(dialog).getByText('Are you sure you want to delete "Orders DB"? This action cannot be undone.'),
    ).toBeTruthy();

    await app.user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(app.api.calls(DELETE)).toHaveLength(1));
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveProperty('disabled', true);
    await app.user.keyboard('{Escape}');
    expect(screen.getByRole('dialog', { name: 'Delete instance?' })).toBeTruthy();

    answer({
      status: 202,
      body: { instance: { ...orders, status: 'deleting' }, message: 'Instance deletion initiated' },
    });
    expect(await screen.findByText('Instance deleted successfully')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete instance?' })).toBeNull());
    expect(app.location()).toBe('/instances');
  });

  it('closes on Cancel without deleting', async () => {
    const app = renderOrders();
    const dialog = await openDelete(app);
    await app.user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delete instance?' })).toBeNull());
    expect(app.api.calls(DELETE)).toHaveLength(0);
  });

  it.each([
    [500, undefined, 'Failed to delete instance'],
    [
      403,
      apiError('Your subscription is inactive. Deleting instances is disabled.', 'subscription_inactive'),
      'Your subscription is inactive. Deleting instances is disabled.',
    ],
  ])('shows the failure (%i)', async (status, body, message) => {
    const app = renderOrders({ [DELETE]: { status, body } });
    const dialog = await openDelete(app);
    await app.user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(message)).toBeTruthy();
  });
});
