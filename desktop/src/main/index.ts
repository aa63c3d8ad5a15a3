/**
 * Electron main process: creates the window, locks down navigation and wires IPC to the keychain, the
 * settings, the tray and system notifications. The logic lives in the modules it imports (tested in Node);
 * this file only hands them Electron's objects.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as keytar from '@napi-rs/keyring/keytar.js';
import { app, BrowserWindow, ipcMain, Menu, Notification, nativeImage, session, shell, Tray } from 'electron';
import Store from 'electron-store';
import trayIconPath from '../../resources/tray-icon.png?asset';
import { registerIpcHandlers } from './ipc-handlers.ts';
import { createMainWindow } from './main-window.ts';
import { isNavigationAllowed, isSafeExternalUrl } from './navigation.ts';
import { createNotifier } from './notifier.ts';
import { createSessionUser } from './session-user.ts';
import { createSettings } from './settings.ts';
import { createTokenStore } from './token-store.ts';
import { createInstanceTray, type InstanceTray } from './tray.ts';

const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
// `electron-vite dev` serves the renderer and passes its URL; the packaged app loads the built file.
const rendererUrl =
  (!app.isPackaged && process.env.ELECTRON_RENDERER_URL) ||
  pathToFileURL(fileURLToPath(new URL('../renderer/index.html', import.meta.url))).href;

const settings = createSettings(new Store<{ serverUrl?: string }>());
const tokenStore = createTokenStore(keytar);

function openInBrowser(url: string): void {
  shell.openExternal(url).catch((error: unknown) => console.error(`Could not open ${url}`, error));
}

/** Every URL the page tries to load goes through the allow-list; http(s) links go to the system browser. */
function mayNavigate(url: string): boolean {
  if (isNavigationAllowed(url, { rendererUrl, serverUrl: settings.getServerUrl() })) return true;
  if (isSafeExternalUrl(url)) openInBrowser(url);
  return false;
}

/** The renderer at an in-app route: the hash router reads the fragment. */
const rendererAt = (route?: string) => (route ? `${rendererUrl}#${route}` : rendererUrl);

let browserWindow: BrowserWindow | null = null;

function createWindow(route?: string): void {
  const window = new BrowserWindow({
    width: 1280,
    height: 800,
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  browserWindow = window;
  window.on('closed', () => {
    if (browserWindow === window) browserWindow = null;
  });
  window.once('ready-to-show', () => window.show());
  window.webContents.on('will-navigate', (event, url) => {
    if (!mayNavigate(url)) event.preventDefault();
  });
  // The app never opens a second window: allowed URLs stay in the router, external ones open outside.
  window.webContents.setWindowOpenHandler(({ url }) => {
    mayNavigate(url);
    return { action: 'deny' };
  });
  void window.loadURL(rendererAt(route));
}

const mainWindow = createMainWindow({ current: () => browserWindow, open: createWindow });
const notifier = createNotifier({
  isSupported: () => Notification.isSupported(),
  createNotification: (options) => new Notification(options),
  window: mainWindow,
});
let tray: InstanceTray | null = null;

registerIpcHandlers(ipcMain, {
  tokenStore,
  settings,
  // After the IPC answer has gone out: the page (and its API client) starts again against the new server.
  reloadApp: () => {
    setImmediate(() => {
      if (browserWindow && !browserWindow.isDestroyed()) void browserWindow.loadURL(rendererAt());
    });
  },
  openExternal: (url) => shell.openExternal(url),
  notify: (title, body, route) => notifier.notify(title, body, route),
  reportInstanceCounts: (counts) => tray?.update(counts),
  sessionUser: createSessionUser(),
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

await app.whenReady();
// The renderer needs no browser permissions (camera, geolocation, …); notifications go through main.
session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
tray = createInstanceTray({
  createTray: () => new Tray(nativeImage.createFromPath(trayIconPath)),
  buildMenu: (items) => Menu.buildFromTemplate(items),
  showWindow: () => mainWindow.show(),
  quit: () => app.quit(),
});
createWindow();
app.on('activate', () => mainWindow.show());
