/**
 * The path of a live-stream notification through the desktop: the renderer's bridge (what the UI's
 * NotificationBell calls through the desktop Platform for each stream event) → IPC → the main process's
 * handler → an Electron Notification with the title and body; a click brings the window forward and sends
 * the route back to the renderer, whose `onOpenRoute` listener (the UI's router) receives it.
 * Electron's Notification and BrowserWindow are fakes; everything between them is the real code.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { registerIpcHandlers } from '../src/main/ipc-handlers.ts';
import { createMainWindow, type WindowLike } from '../src/main/main-window.ts';
import { createNotifier, type NotificationLike } from '../src/main/notifier.ts';
import { createSettings } from '../src/main/settings.ts';
import { createTokenStore } from '../src/main/token-store.ts';
import { createBridge } from '../src/preload/bridge.ts';
import type { DesktopBridge } from '../src/shared/ipc-contract.ts';
import { createFakeIpc, createFakeWindow, createMemoryKeychain, createMemorySettingsStore } from './fakes.ts';

/** Electron's Notification as the notifier uses it: records options, `show()` and lets a test click it. */
class FakeNotification implements NotificationLike {
  static created: FakeNotification[] = [];
  shown = false;
  private readonly listeners = new Map<string, (() => void)[]>();
  readonly options: { title: string; body: string };
  constructor(options: { title: string; body: string }) {
    this.options = options;
    FakeNotification.created.push(this);
  }
  on(event: 'click' | 'close', listener: () => void) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  show() {
    this.shown = true;
  }
  emit(event: 'click' | 'close') {
    for (const listener of this.listeners.get(event) ?? []) listener();
  }
}

describe('a stream notification becomes a system notification that opens its route', () => {
  let bridge: DesktopBridge;
  let window: ReturnType<typeof createFakeWindow>;
  let current: WindowLike | null;
  let opened: (string | undefined)[];
  let supported: boolean;
  let routes: string[];

  beforeEach(() => {
    FakeNotification.created = [];
    supported = true;
    opened = [];
    routes = [];
    const ipc = createFakeIpc();
    window = createFakeWindow(ipc.sendToRenderer);
    current = window.window;
    const mainWindow = createMainWindow({
      current: () => current,
      open: (route) => {
        opened.push(route);
      },
    });
    const notifier = createNotifier({
      isSupported: () => supported,
      createNotification: (options) => new FakeNotification(options),
      window: mainWindow,
    });
    registerIpcHandlers(ipc.ipc, {
      tokenStore: createTokenStore(createMemoryKeychain()),
      settings: createSettings(createMemorySettingsStore()),
      reloadApp: () => {},
      openExternal: async () => {},
      notify: (title, body, route) => notifier.notify(title, body, route),
      reportInstanceCounts: () => {},
      // No secrets here: nobody's session.
      sessionUser: async () => null,
    });
    bridge = createBridge(ipc.renderer);
    bridge.onOpenRoute((route) => routes.push(route));
  });

  it('shows the title and body; a click restores and focuses the window and opens the route', async () => {
    window.state.minimized = true;
    await bridge.notify('New reply to your ticket', 'Support answered “SFTP access”', '/get-help?tab=my');

    expect(FakeNotification.created).toHaveLength(1);
    const [shown] = FakeNotification.created;
    expect(shown?.options).toEqual({
      title: 'New reply to your ticket',
      body: 'Support answered “SFTP access”',
    });
    expect(shown?.shown).toBe(true);
    expect(window.calls).toEqual([]);
    expect(routes).toEqual([]);

    shown?.emit('click');
    expect(window.calls).toEqual(['restore', 'show', 'focus', 'send app:open-route ["/get-help?tab=my"]']);
    expect(routes).toEqual(['/get-help?tab=my']);
  });

  it('without a route, a click only brings the app forward', async () => {
    await bridge.notify('Welcome', 'Your trial has started');
    FakeNotification.created[0]?.emit('click');
    expect(window.calls).toEqual(['show', 'focus']);
    expect(routes).toEqual([]);
  });

  it('opens a new window at the route when the window was closed (macOS keeps the app running)', async () => {
    await bridge.notify('Instance ready', 'Your MySQL database is ready.', '/instances');
    current = null;
    FakeNotification.created[0]?.emit('click');
    expect(opened).toEqual(['/instances']);
    expect(routes).toEqual([]);
  });

  it('shows nothing where the desktop has no notification server', async () => {
    supported = false;
    await bridge.notify('Instance ready', 'Your MySQL database is ready.', '/instances');
    expect(FakeNotification.created).toEqual([]);
  });

  it('refuses a route that is not an in-app path before showing anything', async () => {
    await expect(bridge.notify('Phish', 'Click me', 'https://evil.example/login')).rejects.toThrow(/in-app/);
    expect(FakeNotification.created).toEqual([]);
  });

  it('stops calling a listener after it unsubscribes', async () => {
    const later: string[] = [];
    const unsubscribe = bridge.onOpenRoute((route) => later.push(route));
    await bridge.notify('Payment received', 'Thank you', '/billing');
    unsubscribe();
    FakeNotification.created[0]?.emit('click');
    expect(later).toEqual([]);
    expect(routes).toEqual(['/billing']);
  });
});
