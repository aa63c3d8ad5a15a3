import type { Schemas } from '@berth/openapi';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { capabilities, instanceList, makeInstance } from '../../../test/fixtures.ts';
import { renderInstances } from '../../../test/instances.ts';

/**
 * The instance list's "Backups of deleted instances": what is kept of a deleted instance and until when,
 * "Restore into a new instance" (named and placed in a dialog, then asked of the server), the reason
 * when it cannot be, and Delete after a confirmation.
 */

type DeletedBackup = Schemas['DeletedInstanceBackup'];

const LEDGER: DeletedBackup = {
  id: 'b-0000000000a1',
  name: 'Before closing',
  note: '',
  createdAt: '2026-11-21T09:00:00.000Z',
  completedAt: '2026-11-21T09:01:00.000Z',
  kind: 'manual',
  bytes: 2_000_000,
  size: 2_100_000,
  location: 'Off-site storage',
  offsite: true,
  keptUntil: '2026-11-28T09:00:00.000Z',
  instance: {
    id: '20000000-0000-4000-8000-000000000001',
    name: 'Ledger',
    type: 'MySQL',
    product: 'mysql',
    region: 'eu-central-1',
    deletedAt: '2026-11-22T10:00:00.000Z',
  },
  restorable: true,
  reason: null,
};

const FLOW: DeletedBackup = {
  ...LEDGER,
  id: 'b-0000000000a2',
  name: 'Daily backup 2026-11-20',
  kind: 'scheduled',
  instance: {
    ...LEDGER.instance,
    id: '20000000-0000-4000-8000-000000000002',
    name: 'Flows',
    type: 'n8n',
    product: 'n8n',
  },
  restorable: false,
  reason: 'Coming soon',
};

const section = () => screen.findByRole('region', { name: 'Backups of deleted instances' });

function render(backups: DeletedBackup[], more = {}) {
  return renderInstances({
    'GET /api/instances': { body: instanceList([]) },
    'GET /api/instances/capabilities': { body: capabilities() },
    'GET /api/subscriptions/can-create-instance': { body: { canCreate: true, reason: null } },
    'GET /api/deleted-instances/backups': { body: { backups } },
    ...more,
  });
}

describe('backups of deleted instances', () => {
  it('lists each with its deleted instance and the day it goes; one that cannot be restored says why', async () => {
    render([LEDGER, FLOW]);
    const list = within(await section()).getByRole('list', { name: 'Backups of deleted instances' });
    const ledger = within(list).getByRole('listitem', { name: 'Ledger: Before closing' });
    expect(within(ledger).getByText(/MySQL instance “Ledger”, deleted/)).toBeTruthy();
    expect(within(ledger).getByText(/Kept until/).textContent).toContain('2 MB');
    expect(within(ledger).getByText('Off-site storage')).toBeTruthy();
    const restore = within(ledger).getByRole('button', { name: 'Restore into a new instance' });
    expect(restore.hasAttribute('disabled')).toBe(false);
    const flows = within(list).getByRole('listitem', { name: 'Flows: Daily backup 2026-11-20' });
    expect(
      within(flows).getByRole('button', { name: 'Restore into a new instance' }).hasAttribute('disabled'),
    ).toBe(true);
  });

  it('shows nothing when there are none', async () => {
    render([]);
    expect(await screen.findByText('No instances found')).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Backups of deleted instances' })).toBeNull();
  });

  it('restores into a new instance named in the dialog, in the deleted one’s region by default', async () => {
    const created = makeInstance({ name: 'Ledger again', status: 'deploying' });
    const app = render([LEDGER], {
      'POST /api/deleted-instances/backups/b-0000000000a1/restore': {
        status: 202,
        body: { instance: created, message: 'Restore into a new instance initiated' },
      },
    });
    const ledger = within(await section()).getByRole('listitem', { name: 'Ledger: Before closing' });
    await app.user.click(within(ledger).getByRole('button', { name: 'Restore into a new instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore into a new instance?' });
    expect(
      within(dialog).getByText(/A new MySQL instance is deployed in EU Central \(Frankfurt\)/),
    ).toBeTruthy();
    const name = within(dialog).getByRole('textbox', { name: /Instance Name/ });
    expect((name as HTMLInputElement).value).toBe('Ledger');
    await app.user.clear(name);
    await app.user.type(name, 'Ledger again');
    await app.user.click(within(dialog).getByRole('button', { name: 'Restore' }));
    expect(await screen.findByText('Restore into a new instance initiated')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(app.api.calls('POST /api/deleted-instances/backups/b-0000000000a1/restore')[0]?.body).toEqual({
      name: 'Ledger again',
      region: 'eu-central-1',
    });
  });

  it('says why the server refused (the plan allows no more instances)', async () => {
    const app = render([LEDGER], {
      'POST /api/deleted-instances/backups/b-0000000000a1/restore': {
        status: 403,
        body: {
          error: 'plan_limit',
          message: 'Cannot create instance. Please check your subscription status.',
        },
      },
    });
    const ledger = within(await section()).getByRole('listitem', { name: 'Ledger: Before closing' });
    await app.user.click(within(ledger).getByRole('button', { name: 'Restore into a new instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore into a new instance?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Restore' }));
    expect(
      await screen.findByText('Cannot create instance. Please check your subscription status.'),
    ).toBeTruthy();
  });

  it('deletes one for good after a confirmation', async () => {
    const app = render([LEDGER], {
      'DELETE /api/deleted-instances/backups/b-0000000000a1': { body: { message: 'Backup deleted' } },
    });
    const ledger = within(await section()).getByRole('listitem', { name: 'Ledger: Before closing' });
    await app.user.click(within(ledger).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete backup?' });
    expect(
      within(dialog).getByText('“Before closing” of the deleted instance “Ledger” is deleted for good.'),
    ).toBeTruthy();
    app.api.on({ 'GET /api/deleted-instances/backups': { body: { backups: [] } } });
    await app.user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Backup deleted')).toBeTruthy();
    await waitFor(() =>
      expect(screen.queryByRole('region', { name: 'Backups of deleted instances' })).toBeNull(),
    );
    expect(app.api.calls('DELETE /api/deleted-instances/backups/b-0000000000a1')).toHaveLength(1);
  });
});
