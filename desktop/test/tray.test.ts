/**
 * The tray: the renderer reports its instance counts through the bridge; the tray's tooltip and first
 * menu line show them, and its click and "Open Berth" bring the window forward. Electron's Tray, Menu
 * and BrowserWindow are fakes; the bridge, IPC handlers, tray and window logic are the real code.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { registerIpcHandlers } from '../src/main/ipc-handlers.ts';
import { createMainWindow, type WindowLike } from '../src/main/main-window.ts';
import { createSettings } from '../src/main/settings.ts';
import { createTokenStore } from '../src/main/token-store.ts';
import {
  createInstanceTray,
  instanceCountsLine,
  type TrayLike,
  type TrayMenuItem,
} from '../src/main/tray.ts';
import { createBridge } from '../src/preload/bridge.ts';
import type { DesktopBridge } from '../src/shared/ipc-contract.ts';
import { createFakeIpc, createFakeWindow, createMemoryKeychain, createMemorySettingsStore } from './fakes.ts';

/** Electron's Tray, keeping what was set on it; the "menu" is the template itself. */
function createFakeTray() {
  const state: { tooltip: string; menu: TrayMenuItem[] | null; click?: () => void } = {
    tooltip: '',
    menu: null,
  };
  const tray: TrayLike<TrayMenuItem[]> = {
    setToolTip: (text) => {
      state.tooltip = text;
    },
    setContextMenu: (menu) => {
      state.menu = menu;
    },
    on: (_event, listener) => {
      state.click = listener;
    },
  };
  const item = (label: string) => state.menu?.find((entry) => entry.label === label);
  return { tray, state, item };
}

describe('instanceCountsLine', () => {
  it.each([
    [{ running: 2, total: 3 }, '2 of 3 instances running'],
    [{ running: 0, total: 3 }, '0 of 3 instances running'],
    [{ running: 1, total: 1 }, '1 of 1 instance running'],
    [{ running: 0, total: 0 }, 'No instances'],
    [null, 'Not signed in'],
  ])('%j → %s', (counts, line) => {
    expect(instanceCountsLine(counts)).toBe(line);
  });
});

describe('the instance tray', () => {
  let bridge: DesktopBridge;
  let fake: ReturnType<typeof createFakeTray>;
  let window: ReturnType<typeof createFakeWindow>;
  let current: WindowLike | null;
  let opened: number;
  let quits: number;

  beforeEach(() => {
    const ipc = createFakeIpc();
    window = createFakeWindow(ipc.sendToRenderer);
    current = window.window;
    opened = 0;
    quits = 0;
    fake = createFakeTray();
    const mainWindow = createMainWindow({
      current: () => current,
      open: () => {
        opened += 1;
      },
    });
    const tray = createInstanceTray({
      createTray: () => fake.tray,
      buildMenu: (items) => items,
      showWindow: () => mainWindow.show(),
      quit: () => {
        quits += 1;
      },
    });
    registerIpcHandlers(ipc.ipc, {
      tokenStore: createTokenStore(createMemoryKeychain()),
      settings: createSettings(createMemorySettingsStore()),
      reloadApp: () => {},
      openExternal: async () => {},
      notify: () => {},
      reportInstanceCounts: (counts) => tray.update(counts),
      // No secrets here: nobody's session.
      sessionUser: async () => null,
    });
    bridge = createBridge(ipc.renderer);
  });

  it('starts signed out, then shows the counts the renderer reports', async () => {
    expect(fake.state.tooltip).toBe('Berth: Not signed in');
    expect(fake.state.menu?.[0]).toEqual({ label: 'Not signed in', enabled: false });

    await bridge.reportInstanceCounts({ running: 2, total: 3 });
    expect(fake.state.tooltip).toBe('Berth: 2 of 3 instances running');
    expect(fake.state.menu?.map((entry) => entry.label ?? entry.type)).toEqual([
      '2 of 3 instances running',
      'separator',
      'Open Berth',
      'Quit Berth',
    ]);
    expect(fake.state.menu?.[0]?.enabled).toBe(false);

    await bridge.reportInstanceCounts(null);
    expect(fake.state.tooltip).toBe('Berth: Not signed in');
  });

  it('keeps the last good counts when the renderer sends nonsense', async () => {
    await bridge.reportInstanceCounts({ running: 1, total: 2 });
    await expect(bridge.reportInstanceCounts({ running: 3, total: 2 })).rejects.toThrow(TypeError);
    expect(fake.state.tooltip).toBe('Berth: 1 of 2 instances running');
  });

  it('a click on the icon or on "Open Berth" restores and focuses the window', async () => {
    window.state.minimized = true;
    fake.state.click?.();
    expect(window.calls).toEqual(['restore', 'show', 'focus']);
    fake.item('Open Berth')?.click?.();
    expect(window.calls).toEqual(['restore', 'show', 'focus', 'show', 'focus']);
    expect(opened).toBe(0);
  });

  it('opens a new window when there is none (or it was destroyed)', () => {
    window.state.destroyed = true;
    fake.state.click?.();
    current = null;
    fake.item('Open Berth')?.click?.();
    expect(opened).toBe(2);
    expect(window.calls).toEqual([]);
  });

  it('"Quit Berth" quits', () => {
    fake.item('Quit Berth')?.click?.();
    expect(quits).toBe(1);
  });
});
