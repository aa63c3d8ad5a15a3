import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { instanceList, makeInstance, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { countInstances } from './instance-counts-reporter.tsx';

describe('countInstances', () => {
  it('counts running instances of the list against its total', () => {
    const list = instanceList([
      makeInstance({ status: 'running' }),
      makeInstance({ status: 'deploying' }),
      makeInstance({ status: 'running' }),
      makeInstance({ status: 'error' }),
    ]);
    expect(countInstances(list)).toEqual({ running: 2, total: 4 });
    expect(countInstances(instanceList([]))).toEqual({ running: 0, total: 0 });
  });
});

describe('the desktop tray counts', () => {
  it('reports running/total when signed in, follows the live stream, and null after logout', async () => {
    const first = makeInstance({ status: 'running' });
    const second = makeInstance({ status: 'deploying' });
    const third = makeInstance({ status: 'running' });
    const app = renderApp({
      path: '/dashboard',
      token: 'stored',
      host: { desktop: true },
      api: {
        ...signedInApi(),
        'GET /api/instances': { body: instanceList([first, second, third]) },
        'POST /api/auth/logout': { body: { success: true } },
      },
    });
    await waitFor(() => expect(app.desktop.trayCounts.at(-1)).toEqual({ running: 2, total: 3 }));

    // The second instance comes up: the stream's instance event updates the counts.
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    app.api.on({
      'GET /api/instances': { body: instanceList([first, { ...second, status: 'running' }, third]) },
    });
    app.streams.latest()?.emit('instance', JSON.stringify({ id: second.id, status: 'running' }));
    await waitFor(() => expect(app.desktop.trayCounts.at(-1)).toEqual({ running: 3, total: 3 }));

    await app.user.click(await screen.findByRole('button', { name: /^Account menu/ }));
    await app.user.click(await screen.findByRole('menuitem', { name: 'Logout' }));
    await waitFor(() => expect(app.desktop.trayCounts.at(-1)).toBeNull());
  });

  it('asks nothing of the web, which has no tray', async () => {
    const app = renderApp({ path: '/dashboard', token: 'stored', api: signedInApi() });
    expect(await screen.findByRole('button', { name: /^Account menu/ })).toBeTruthy();
    expect(app.desktop.trayCounts).toEqual([]);
  });
});
