import { describe, expect, it, vi } from 'vitest';
import { preloadScreen, type RouteTable } from './route-table.tsx';

describe('preloadScreen', () => {
  it("fetches the code of the path's screen, and nothing for a redirect or an unknown path", () => {
    const preload = vi.fn();
    const Dashboard = Object.assign(() => null, { preload });
    const table: RouteTable = [
      { path: '/dashboard', Component: Dashboard },
      { path: '/', redirectTo: '/dashboard' },
    ];
    preloadScreen('/', table);
    preloadScreen('/nowhere', table);
    expect(preload).not.toHaveBeenCalled();
    preloadScreen('/dashboard', table);
    expect(preload).toHaveBeenCalledTimes(1);
  });
});
