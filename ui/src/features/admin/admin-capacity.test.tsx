import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, makeUser, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import type { HostCapacity } from '../../api/usage.queries.ts';

const admin = makeUser({ role: 'admin', username: 'root' });
const GIB = 1_073_741_824;

const capacity: HostCapacity = {
  memory: { hostBytes: 24 * GIB, soldBytes: 30 * GIB },
  cpu: { hostCpus: 2, soldCpus: 1.5 },
  disk: { totalBytes: 100 * GIB, freeBytes: 60 * GIB },
  instances: 3,
  storage: null,
  enforcement: 'cgroup v1',
  busiest: [
    {
      id: '10000000-0000-4000-8000-00000000aaaa',
      name: 'Shop',
      type: 'WordPress',
      ownerId: '20000000-0000-4000-8000-000000000001',
      cpu: 0.42,
      memoryBytes: 300 * 1_048_576,
      memoryLimitBytes: 512 * 1_048_576,
      requests: 1234,
    },
  ],
  places: [],
};

function renderServerTab(api: FakeRoutes) {
  return renderApp({
    path: '/admin-panel?tab=server',
    token: 'stored',
    api: { ...signedInApi(admin), 'GET /api/admin/capabilities': { body: { types: [] } }, ...api },
  });
}

describe('host capacity (Admin Panel → Server)', () => {
  it('shows memory and CPU sold against the host, the disk and the busiest instances', async () => {
    renderServerTab({ 'GET /api/admin/capacity': { body: capacity } });
    const section = await screen.findByRole('region', { name: 'Host capacity' });
    expect(await within(section).findByText('30 GB sold of 24 GB on the host')).toBeTruthy();
    expect(within(section).getByText('125%')).toBeTruthy();
    expect(within(section).getByText('1.5 vCPU sold of 2 vCPU on the host')).toBeTruthy();
    expect(within(section).getByText('40 GB used of 100 GB; 60 GB free')).toBeTruthy();
    expect(within(section).getByText('3 deployed instances; limits enforced by cgroup v1.')).toBeTruthy();
    const table = within(section).getByRole('table', { name: 'Busiest instances' });
    const cells = within(table)
      .getAllByRole('cell')
      .map((cell) => cell.textContent);
    expect(cells).toEqual(['Shop', 'WordPress', '0.42 vCPU', '300 MB of 512 MB', '1,234']);
    expect(within(table).getByRole('link', { name: 'Shop' }).getAttribute('href')).toBe(
      '/instances/10000000-0000-4000-8000-00000000aaaa?tab=usage',
    );
  });

  it('shows the disk as its policy sees it: real use, what is promised and the room left in sites', async () => {
    renderServerTab({
      'GET /api/admin/capacity': {
        body: {
          ...capacity,
          storage: {
            sizeBytes: 100 * GIB,
            usedBytes: 80 * GIB,
            freeBytes: 20 * GIB,
            reserveBytes: 4 * GIB,
            promisedBytes: 150 * GIB,
            tenantUsedBytes: 30 * GIB,
            overcommit: 4,
            promiseLimitBytes: 184 * GIB,
            highWaterBytes: 81.6 * GIB,
            useShare: 80 / 96,
            headroomSites: 12,
            holdAllowanceBytes: 48 * 1024 * 1024,
          },
        },
      },
    });
    const section = await screen.findByRole('region', { name: 'Host capacity' });
    expect(
      await within(section).findByText(
        '80 GB used of 96 GB (4 GB more kept for the platform); new instances are refused past 85%',
      ),
    ).toBeTruthy();
    expect(within(section).getByText('83%')).toBeTruthy();
    expect(within(section).getByRole('progressbar', { name: 'Disk used' }).className).toContain('Warning');
    expect(
      within(section).getByText(
        '150 GB promised to instances’ disks, 30 GB of it written; up to 184 GB (4× the real space)',
      ),
    ).toBeTruthy();
    expect(within(section).getByRole('progressbar', { name: 'Disk promised' }).className).not.toContain(
      'Warning',
    );
    expect(
      within(section).getByText(
        '3 deployed instances; limits enforced by cgroup v1. Room for about 12 more WordPress sites. Instances’ disks are held out of the reserve: each may write about 48 MB more at once, and more as it writes.',
      ),
    ).toBeTruthy();
  });

  it('shows each server of a swarm, per region, with what is reserved there', async () => {
    renderServerTab({
      'GET /api/admin/capacity': {
        body: {
          ...capacity,
          places: [
            {
              region: 'us-east-1',
              node: 'use1-m',
              state: 'active',
              memoryBytes: 16 * GIB,
              reservedMemoryBytes: 4 * GIB,
              cpus: 2,
              reservedCpus: 1,
              diskBytes: 100 * GIB,
              diskFreeBytes: 75 * GIB,
              storage: {
                sizeBytes: 100 * GIB,
                usedBytes: 25 * GIB,
                freeBytes: 75 * GIB,
                reserveBytes: 2 * GIB,
                promisedBytes: 40 * GIB,
                tenantUsedBytes: 5 * GIB,
                overcommit: 1,
                promiseLimitBytes: 78 * GIB,
                highWaterBytes: 83.3 * GIB,
                useShare: 25 / 98,
                headroomSites: 19,
                holdAllowanceBytes: null,
              },
              instances: 3,
            },
            {
              region: 'us-east-1',
              node: 'use1-w',
              state: 'down',
              memoryBytes: 8 * GIB,
              reservedMemoryBytes: 0,
              cpus: 2,
              reservedCpus: 0,
              diskBytes: 0,
              diskFreeBytes: 0,
              instances: 0,
            },
          ],
        },
      },
    });
    const section = await screen.findByRole('region', { name: 'Host capacity' });
    expect(await within(section).findByText('30 GB sold of 24 GB on 1 server taking instances')).toBeTruthy();
    const table = within(section).getByRole('table', { name: 'Servers' });
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) =>
        within(row)
          .getAllByRole('cell')
          .map((cell) => cell.textContent),
      );
    expect(rows).toEqual([
      [
        'us-east-1',
        'use1-m',
        'active',
        '4 GB of 16 GB',
        '1 vCPU of 2 vCPU',
        '25 GB of 100 GB',
        '40 GB of 78 GB',
        '3',
      ],
      ['us-east-1', 'use1-w', 'down', '0 KB of 8 GB', '0 vCPU of 2 vCPU', '—', '—', '0'],
    ]);
  });

  it('says so when the driver measures nothing', async () => {
    renderServerTab({
      'GET /api/admin/capacity': { status: 404, body: apiError('Nothing measured', 'not_found') },
    });
    expect(await screen.findByText("This server's provisioning driver measures nothing.")).toBeTruthy();
  });
});
