/**
 * Bringing the app forward, for the tray and for clicks on system notifications. Works on the slice of
 * Electron's `BrowserWindow` it needs, so it is tested in Node with a fake window.
 */
import { RendererEvent } from '../shared/ipc-contract.ts';

/** The part of `BrowserWindow` used here. */
export interface WindowLike {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
  webContents: { send(channel: string, ...args: unknown[]): void };
}

export interface MainWindowDeps {
  /** The app's window, or null when it was closed (macOS keeps the app running without one). */
  current(): WindowLike | null;
  /** Creates the window; `route` is the in-app path it should start at (default: the app's start page). */
  open(route?: string): void;
}

export interface MainWindow {
  /** Restores, shows and focuses the window, or opens a new one. */
  show(): void;
  /** Brings the app forward at `route` (an in-app path already checked with `isInAppRoute`). */
  showRoute(route: string): void;
}

export function createMainWindow(deps: MainWindowDeps): MainWindow {
  const live = () => {
    const window = deps.current();
    return window && !window.isDestroyed() ? window : null;
  };
  const bringForward = (window: WindowLike) => {
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };
  return {
    show() {
      const window = live();
      if (window) bringForward(window);
      else deps.open();
    },
    showRoute(route) {
      const window = live();
      if (!window) {
        deps.open(route);
        return;
      }
      bringForward(window);
      // The renderer's router takes it from there (the desktop Platform's onOpenRoute).
      window.webContents.send(RendererEvent.openRoute, route);
    },
  };
}
