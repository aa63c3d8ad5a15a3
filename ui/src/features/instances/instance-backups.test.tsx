import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import {
  apiError,
  backupRow,
  databaseAccess,
  featuresOf,
  makeInstance,
  makeUser,
} from '../../../test/fixtures.ts';
import { renderInstances } from '../../../test/instances.ts';
import type { Instance } from '../../api/instances.queries.ts';

/**
 * The Backups card of database and n8n instances: what each backup says (time, size, kind, where it is
 * kept), its live progress from the stream, download through the short-lived link, and a restore after
 * a confirmation that says what is replaced, the instance reading Restoring and then Running.
 */

const orders = makeInstance({ name: 'Orders DB', type: 'MySQL' });
const BASE = `/api/instances/${orders.id}`;

const NIGHTLY = backupRow({
  id: 'b-nightly',
  name: 'Daily backup',
  kind: 'scheduled',
  createdAt: '2026-11-21T03:12:00.000Z',
  size: 3_250_000,
});
const LOCAL = backupRow({
  id: 'b-local',
  name: 'Before import',
  note: 'two tables',
  location: 'This server',
  offsite: false,
  size: 40_960,
});
const FAILED = backupRow({
  id: 'b-failed',
  name: 'Broken one',
  status: 'failed',
  error: 'The storage did not answer (reference 4f2a9c1e)',
  size: 0,
});

function renderDetail(instance: Instance = orders, api: FakeRoutes = {}) {
  const base = `/api/instances/${instance.id}`;
  return renderInstances(
    {
      [`GET ${base}`]: { body: { instance } },
      [`GET ${base}/access`]: { body: databaseAccess() },
      [`GET ${base}/backups`]: { body: [NIGHTLY, LOCAL, FAILED] },
      ...api,
    },
    makeUser(),
    `/instances/${instance.id}`,
  );
}

const backupsCard = () => screen.findByRole('region', { name: 'Backups' });
const item = (list: HTMLElement, name: string) => within(list).getByRole('listitem', { name });

describe('backups of a database instance', () => {
  it('lists each backup with its time, size, kind and where it is kept; a failed one says why', async () => {
    renderDetail();
    const card = await backupsCard();
    const list = await within(card).findByRole('list', { name: 'Backups' });
    const nightly = item(list, 'Daily backup');
    expect(within(nightly).getByText(/2026/).textContent).toContain('3.1 MB');
    expect(within(nightly).getByText('Scheduled')).toBeTruthy();
    expect(within(nightly).getByText('Off-site storage')).toBeTruthy();
    expect(within(nightly).getByRole('button', { name: 'Download' })).toBeTruthy();
    expect(within(nightly).getByRole('button', { name: 'Restore' })).toBeTruthy();

    const local = item(list, 'Before import');
    expect(within(local).getByText('two tables')).toBeTruthy();
    expect(within(local).getByText(/2026/).textContent).toContain('40 KB');
    expect(within(local).getByText('Manual')).toBeTruthy();
    expect(within(local).getByText('This server')).toBeTruthy();

    const failed = item(list, 'Broken one');
    expect(within(failed).getByText('The storage did not answer (reference 4f2a9c1e)')).toBeTruthy();
    // Nothing to restore or download from a failed backup; it can only be deleted.
    expect(within(failed).queryByRole('button', { name: 'Restore' })).toBeNull();
    expect(within(failed).queryByRole('button', { name: 'Download' })).toBeNull();
    expect(within(failed).getByRole('button', { name: 'Delete' })).toBeTruthy();
  });

  it('shows a backup running live from the stream, then complete', async () => {
    const running = backupRow({ id: 'b-new', name: 'Nightly', status: 'running', bytes: 0, size: 0 });
    const app = renderDetail(orders, { [`GET ${BASE}/backups`]: { body: [running, NIGHTLY] } });
    const card = await backupsCard();
    const list = await within(card).findByRole('list', { name: 'Backups' });
    expect(
      within(item(list, 'Nightly')).getByRole('progressbar', { name: 'Backing up Nightly' }),
    ).toBeTruthy();
    expect(within(item(list, 'Nightly')).queryByRole('button', { name: 'Restore' })).toBeNull();
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));

    const emit = (backup: object) =>
      app.streams
        .latest()
        ?.emit('instance', JSON.stringify({ id: orders.id, status: 'running', statusMessage: null, backup }));
    emit({ id: 'b-new', status: 'running', step: 'Dumping the database', bytes: 2_097_152, error: null });
    await waitFor(() =>
      expect(within(item(list, 'Nightly')).getByRole('status').textContent).toBe(
        'Dumping the database · 2 MB',
      ),
    );

    app.api.on({
      [`GET ${BASE}/backups`]: { body: [{ ...running, status: 'complete', size: 2_200_000 }, NIGHTLY] },
    });
    emit({ id: 'b-new', status: 'complete', step: null, bytes: 2_200_000, error: null });
    const done = await within(item(list, 'Nightly')).findByRole('button', { name: 'Restore' });
    expect(done).toBeTruthy();
    expect(within(item(list, 'Nightly')).queryByRole('progressbar')).toBeNull();
  });

  it('downloads through a link asked for on the click', async () => {
    const url = 'https://berth.example.com/api/backup-downloads/signed-token';
    const app = renderDetail(orders, {
      [`POST ${BASE}/backups/b-nightly/download`]: {
        body: { url, expiresAt: '2026-11-21T09:05:00.000Z' },
      },
      [`POST ${BASE}/backups/b-local/download`]: {
        status: 409,
        body: apiError('The backup is not complete', 'conflict'),
      },
    });
    const list = await within(await backupsCard()).findByRole('list', { name: 'Backups' });
    await app.user.click(within(item(list, 'Daily backup')).getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(app.externalUrls).toEqual([url]));
    await app.user.click(within(item(list, 'Before import')).getByRole('button', { name: 'Download' }));
    expect(await screen.findByText('The backup is not complete')).toBeTruthy();
    expect(app.externalUrls).toEqual([url]);
  });

  it('restores after a confirmation: Restoring with its progress, then Running', async () => {
    const app = renderDetail(orders, {
      [`POST ${BASE}/backups/b-nightly/restore`]: { status: 202, body: { message: 'Restore initiated' } },
    });
    const list = await within(await backupsCard()).findByRole('list', { name: 'Backups' });
    await app.user.click(within(item(list, 'Daily backup')).getByRole('button', { name: 'Restore' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore backup?' });
    expect(
      within(dialog).getByText(/The database's contents are replaced by those of “Daily backup”/),
    ).toBeTruthy();
    expect(app.api.calls(`POST ${BASE}/backups/b-nightly/restore`)).toHaveLength(0);
    await app.user.click(within(dialog).getByRole('button', { name: 'Restore' }));
    expect(await screen.findByText('Restore initiated')).toBeTruthy();
    expect(app.api.calls(`POST ${BASE}/backups/b-nightly/restore`)).toHaveLength(1);
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));

    const restoring = { ...orders, status: 'restoring' as const };
    app.api.on({ [`GET ${BASE}`]: { body: { instance: restoring } } });
    app.streams.latest()?.emit(
      'instance',
      JSON.stringify({
        id: orders.id,
        status: 'restoring',
        statusMessage: null,
        backup: { id: 'b-nightly', status: 'restoring', step: 'Loading the database', bytes: 1_048_576 },
      }),
    );
    const card = await backupsCard();
    await waitFor(() =>
      expect(within(card).getByText(/^Restoring…/).textContent).toBe(
        'Restoring… Loading the database · 1 MB',
      ),
    );
    expect(screen.getAllByText('Restoring').length).toBeGreaterThan(0);
    expect(within(item(list, 'Daily backup')).getByRole('button', { name: 'Restore' })).toHaveProperty(
      'disabled',
      true,
    );

    app.api.on({ [`GET ${BASE}`]: { body: { instance: orders } } });
    app.streams.latest()?.emit(
      'instance',
      JSON.stringify({
        id: orders.id,
        status: 'running',
        statusMessage: null,
        backup: { id: 'b-nightly', status: 'restored', step: null, bytes: 3_250_000, error: null },
      }),
    );
    await waitFor(() => expect(within(card).queryByText(/^Restoring…/)).toBeNull());
    expect(screen.queryAllByText('Restoring')).toHaveLength(0);
    expect(screen.getAllByText('Running').length).toBeGreaterThan(0);
  });

  it('says why a restore failed, with its reference', async () => {
    const app = renderDetail();
    await backupsCard();
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    app.streams.latest()?.emit(
      'instance',
      JSON.stringify({
        id: orders.id,
        status: 'running',
        statusMessage: null,
        backup: {
          id: 'b-nightly',
          status: 'restore-failed',
          step: null,
          bytes: 0,
          error: 'The backup is damaged: it does not match its checksum (reference 9b1d77aa)',
        },
      }),
    );
    expect(
      await screen.findByText('The backup is damaged: it does not match its checksum (reference 9b1d77aa)'),
    ).toBeTruthy();
  });
});

describe('an instance whose server is gone', () => {
  it('lists its backups and restores one (the server deploys it again first)', async () => {
    const stranded = makeInstance({
      name: 'Stranded DB',
      type: 'MySQL',
      status: 'error',
      statusMessage: 'Waiting for its server to come back',
    });
    const base = `/api/instances/${stranded.id}`;
    const app = renderDetail(stranded, {
      [`POST ${base}/backups/b-nightly/restore`]: { status: 202, body: { message: 'Restore initiated' } },
    });
    const list = await within(await backupsCard()).findByRole('list', { name: 'Backups' });
    await app.user.click(within(item(list, 'Daily backup')).getByRole('button', { name: 'Restore' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore backup?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Restore' }));
    expect(await screen.findByText('Restore initiated')).toBeTruthy();
    expect(app.api.calls(`POST ${base}/backups/b-nightly/restore`)).toHaveLength(1);
  });
});

describe('which instances have backups', () => {
  it('gives n8n the card with its own restore warning, and a type whose backups are not offered its reason', async () => {
    const flows = makeInstance({ name: 'Flows', type: 'n8n', category: 'application', product: 'n8n' });
    const app = renderDetail(flows);
    const list = await within(await backupsCard()).findByRole('list', { name: 'Backups' });
    await app.user.click(within(item(list, 'Daily backup')).getByRole('button', { name: 'Restore' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore backup?' });
    expect(
      within(dialog).getByText(
        "The instance's workflows, credentials and settings are replaced by those of “Daily backup”.",
      ),
    ).toBeTruthy();
    app.unmount();

    const reason = 'Backups of MongoDB are not offered on this server yet';
    const mongo = makeInstance({
      name: 'Catalog',
      type: 'MongoDB',
      product: 'mongodb',
      features: featuresOf('mongodb', { backups: reason }),
    });
    renderDetail(mongo);
    expect(await screen.findByRole('heading', { level: 1, name: 'Catalog' })).toBeTruthy();
    const card = await backupsCard();
    expect(within(card).getByText(reason)).toBeTruthy();
    expect(within(card).queryByRole('list', { name: 'Backups' })).toBeNull();
  });
});
