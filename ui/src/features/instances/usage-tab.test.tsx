import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../../test/fake-api.ts';
import { instanceList, makeInstance, makeUser } from '../../../test/fixtures.ts';
import { renderInstances } from '../../../test/instances.ts';
import type { Instance } from '../../api/instances.queries.ts';
import type { UsagePoint, UsageRange, UsageReport } from '../../api/usage.queries.ts';

const MIB = 1_048_576;
const blog = makeInstance({
  name: 'Blog',
  type: 'WordPress',
  product: 'wordpress',
  category: 'application',
  url: 'https://blog-x1.sites.example.net',
  metadata: { database: false },
  deploymentConfig: { region: 'us-east-1', memory: '512MB', cpu: '1' },
});

const point = (at: string, over: Partial<UsagePoint> = {}): UsagePoint => ({
  at,
  cpu: 0.1,
  memoryBytes: 100 * MIB,
  memoryPeakBytes: 120 * MIB,
  memoryLimitBytes: 512 * MIB,
  diskUsedBytes: 200 * MIB,
  diskLimitBytes: 1024 * MIB,
  requests: { status2xx: 240, status3xx: 5, status4xx: 4, status5xx: 1, bytesSent: 1000 },
  oomKills: 0,
  ...over,
});

/** The server's report for `points`: current values are the last, peaks the highest. */
function report(range: UsageRange, points: UsagePoint[], over: Partial<UsageReport> = {}): UsageReport {
  const requests = points.flatMap((p) => (p.requests ? [p.requests] : []));
  const total = (pick: (r: (typeof requests)[number]) => number) => requests.reduce((n, r) => n + pick(r), 0);
  return {
    instanceId: blog.id,
    range,
    stepSeconds: range === '1h' ? 15 : range === '24h' ? 300 : 1800,
    measured: true,
    limits: [
      { label: 'Memory', value: '512 MB for this instance alone, enforced by the kernel', enforced: true },
      { label: 'CPU', value: '1 vCPU for this instance alone, enforced by the kernel', enforced: true },
    ],
    sharedServer: false,
    cpuLimit: 1,
    lastOutOfMemoryAt: null,
    summary: {
      cpu: { current: points.at(-1)?.cpu ?? null, peak: Math.max(...points.map((p) => p.cpu ?? 0)) },
      memory: {
        current: points.at(-1)?.memoryBytes ?? null,
        peak: Math.max(...points.map((p) => p.memoryPeakBytes ?? 0)),
        limit: 512 * MIB,
      },
      disk: { used: 200 * MIB, limit: 1024 * MIB },
      requests: {
        status2xx: total((r) => r.status2xx),
        status3xx: total((r) => r.status3xx),
        status4xx: total((r) => r.status4xx),
        status5xx: total((r) => r.status5xx),
        bytesSent: total((r) => r.bytesSent),
        total: total((r) => r.status2xx + r.status3xx + r.status4xx + r.status5xx),
      },
    },
    points,
    ...over,
  };
}

const now = Date.now();
const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
const hour = report('1h', [
  point(iso(60_000)),
  point(iso(45_000), { cpu: 0.8, memoryBytes: 300 * MIB, memoryPeakBytes: 310 * MIB }),
]);
const day = report('24h', [point(iso(600_000), { requests: null }), point(iso(300_000))]);

function renderUsage(instance: Instance, answers: Partial<Record<UsageRange, UsageReport>>) {
  return renderInstances(
    {
      [`GET /api/instances/${instance.id}`]: { body: { instance } },
      [`GET /api/instances/${instance.id}/usage`]: (request: RecordedRequest) => {
        const range = (new URLSearchParams(request.search).get('range') ?? '1h') as UsageRange;
        const answer = answers[range];
        return answer ? { body: answer } : { status: 500, body: { error: 'x', message: 'x' } };
      },
    },
    makeUser(),
    `/instances/${instance.id}?tab=usage`,
  );
}

const words = async () => within(await screen.findByRole('list', { name: 'Usage in words' }));

describe('the Usage tab', () => {
  it('says the current values and the peaks in words, and switches the range', async () => {
    const app = renderUsage(blog, { '1h': hour, '24h': day });
    const list = await words();
    expect(screen.getByRole('tab', { name: 'Usage', selected: true })).toBeTruthy();
    expect(list.getByText('CPU: 0.8 vCPU now of 1 vCPU; peak 0.8 vCPU in the last hour.')).toBeTruthy();
    expect(list.getByText('Memory: 300 MB now of 512 MB; peak 310 MB in the last hour.')).toBeTruthy();
    expect(list.getByText('Disk: 200 MB used of 1 GB.')).toBeTruthy();
    expect(
      list.getByText(
        'Requests: 500 in the last hour: 480 successful, 10 redirects, 8 client errors, 2 server errors.',
      ),
    ).toBeTruthy();
    // The charts' chunk loads on demand; the disk bar sits beside them.
    const disk = await screen.findByRole('progressbar', { name: 'Disk used' }, { timeout: 5000 });
    expect(Number(disk.getAttribute('aria-valuenow'))).toBeCloseTo((200 / 1024) * 100, 1);
    expect(screen.getByTestId('usage-memory-chart').querySelector('svg')).toBeTruthy();

    await app.user.click(screen.getByRole('button', { name: '24 hours' }));
    await waitFor(async () =>
      expect((await words()).getByText(/^Requests: 250 in the last 24 hours/)).toBeTruthy(),
    );
    expect(app.api.calls(`GET /api/instances/${blog.id}/usage`).map((r) => r.search)).toEqual([
      '?range=1h',
      '?range=24h',
    ]);
  });

  it('adds the live stream’s points to the last hour', async () => {
    const app = renderUsage(blog, { '1h': hour });
    await words();
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    const live = point(new Date(now).toISOString(), {
      cpu: 0.05,
      memoryBytes: 450 * MIB,
      memoryPeakBytes: 460 * MIB,
      requests: { status2xx: 100, status3xx: 0, status4xx: 0, status5xx: 0, bytesSent: 10 },
    });
    app.streams.latest()?.emit('usage', JSON.stringify({ instanceId: blog.id, point: live }));
    const list = await words();
    expect(list.getByText('Memory: 450 MB now of 512 MB; peak 460 MB in the last hour.')).toBeTruthy();
    expect(list.getByText('CPU: 0.05 vCPU now of 1 vCPU; peak 0.8 vCPU in the last hour.')).toBeTruthy();
    expect(list.getByText(/^Requests: 600 in the last hour: 580 successful/)).toBeTruthy();
    // Another instance's point changes nothing here.
    app.streams
      .latest()
      ?.emit(
        'usage',
        JSON.stringify({ instanceId: 'someone-else', point: point(new Date(now + 1).toISOString()) }),
      );
    expect((await words()).getByText(/^Memory: 450 MB now/)).toBeTruthy();
  });

  it('says when the instance was restarted after running out of memory', async () => {
    const at = new Date();
    at.setHours(14, 2, 0, 0);
    if (at.getTime() > Date.now()) at.setDate(at.getDate() - 1);
    renderUsage(blog, { '1h': { ...hour, lastOutOfMemoryAt: at.toISOString() } });
    const notice = await screen.findByText(/^Restarted after running out of memory at 14:02/);
    expect(notice.textContent).toMatch(/^Restarted after running out of memory at 14:02( on .+)?$/);
  });

  it('says that a database on a shared server is measured by its disk alone, without CPU and memory charts', async () => {
    const orders = makeInstance({ name: 'Orders' });
    const diskOnly = point(iso(30_000), {
      cpu: null,
      memoryBytes: null,
      memoryPeakBytes: null,
      memoryLimitBytes: null,
      requests: null,
    });
    const base = report('1h', [diskOnly], { instanceId: orders.id, cpuLimit: null });
    renderUsage(orders, {
      '1h': {
        ...base,
        summary: {
          ...base.summary,
          cpu: { current: null, peak: null },
          memory: { current: null, peak: null, limit: null },
          requests: null,
        },
      },
    });
    const list = await words();
    expect(list.getByText('CPU: not measured for this instance alone (it shares its server).')).toBeTruthy();
    expect(
      list.getByText('Memory: not measured for this instance alone (it shares its server).'),
    ).toBeTruthy();
    expect(list.getByText('Disk: 200 MB used of 1 GB.')).toBeTruthy();
    expect(list.queryByText(/^Requests/)).toBeNull();
    await screen.findByRole('progressbar', { name: 'Disk used' }, { timeout: 5000 });
    expect(screen.queryByTestId('usage-cpu-chart')).toBeNull();
    expect(screen.queryByTestId('usage-memory-chart')).toBeNull();
  });

  it('says so when this server measures nothing', async () => {
    renderUsage(blog, { '1h': report('1h', [], { measured: false }) });
    expect(await screen.findByText('This server does not measure what its instances use.')).toBeTruthy();
  });
});

describe('the Configuration card', () => {
  it('says which limits bound a database on a shared server', async () => {
    const orders = makeInstance({ name: 'Orders' });
    renderInstances(
      {
        [`GET /api/instances/${orders.id}`]: { body: { instance: orders } },
        [`GET /api/instances/${orders.id}/usage`]: {
          body: report('1h', [], {
            instanceId: orders.id,
            cpuLimit: null,
            sharedServer: true,
            limits: [
              { label: 'Memory', value: 'Shared with the other databases on this server', enforced: false },
              { label: 'Connections', value: 'At most 20 at once', enforced: true },
            ],
          }),
        },
      },
      makeUser(),
      `/instances/${orders.id}`,
    );
    const card = await screen.findByRole('region', { name: 'Configuration' });
    expect(await within(card).findByText('Limits on a shared server')).toBeTruthy();
    expect(within(card).getByText('At most 20 at once (Enforced)')).toBeTruthy();
    expect(within(card).getByText('Shared with the other databases on this server')).toBeTruthy();
  });

  it('shows a database with a server of its own its limits, without a word of sharing', async () => {
    const orders = makeInstance({ name: 'Orders' });
    renderInstances(
      {
        [`GET /api/instances/${orders.id}`]: { body: { instance: orders } },
        [`GET /api/instances/${orders.id}/usage`]: {
          body: report('1h', [], {
            instanceId: orders.id,
            limits: [
              {
                label: 'Memory',
                value: '4GB for this instance alone, enforced by the kernel',
                enforced: true,
              },
              {
                label: 'Statement time',
                value: 'Stopped after 120 seconds by default (a session may change it)',
                enforced: false,
              },
            ],
          }),
        },
      },
      makeUser(),
      `/instances/${orders.id}`,
    );
    const card = await screen.findByRole('region', { name: 'Configuration' });
    expect(await within(card).findByText('Limits')).toBeTruthy();
    expect(within(card).queryByText('Limits on a shared server')).toBeNull();
    expect(within(card).queryByText(/shared with other/)).toBeNull();
    expect(within(card).getByText('4GB for this instance alone, enforced by the kernel')).toBeTruthy();
  });
});

describe('the dashboard’s current instance', () => {
  it('shows its last hour of memory and CPU as small lines, with the current values in words', async () => {
    renderInstances(
      {
        'GET /api/instances': { body: instanceList([blog]) },
        [`GET /api/instances/${blog.id}/usage`]: { body: hour },
      },
      makeUser(),
      '/dashboard',
    );
    const usage = await screen.findByRole('region', { name: 'Usage, last hour' });
    expect(
      within(usage).getByText(
        'Memory: 300 MB now of 512 MB; peak 310 MB in the last hour. CPU: 0.8 vCPU now of 1 vCPU; peak 0.8 vCPU in the last hour.',
      ),
    ).toBeTruthy();
    await waitFor(() => expect(usage.querySelectorAll('svg').length).toBeGreaterThanOrEqual(2), {
      timeout: 5000,
    });
  });
});
