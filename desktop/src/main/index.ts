/** Electron main process: creates the window, locks down navigation and wires IPC to the keychain and settings. */
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as keytar from '@napi-rs/keyring/keytar.js';
import { app, BrowserWindow, ipcMain, Notification, session, shell } from 'electron';
import Store from 'electron-store';
import { registerIpcHandlers } from './ipc-handlers.ts';
import { isNavigationAllowed, isSafeExternalUrl } from './navigation.ts';
import { createSettings } from './settings.ts';
import { createTokenStore } from './token-store.ts';

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

function createWindow(): void {
  const mainWindow = new BrowserWindow({
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
  mainWindow.once('ready-to-show', () => mainWindow.show());
  mainWindow.webContents.on('will-navigate', (event, url) => {
    if (!mayNavigate(url)) event.preventDefault();
  });
  // The app never opens a second window: allowed URLs stay in the router, external ones open outside.
  mainWindow.webContents.setWindowOpenHandler(({ url }) => {
    mayNavigate(url);
    return { action: 'deny' };
  });
  void mainWindow.loadURL(rendererUrl);
}

registerIpcHandlers(ipcMain, {
  tokenStore,
  settings,
  openExternal: (url) => shell.openExternal(url),
  notify: (title, body) => {
    if (Notification.isSupported()) new Notification({ title, body }).show();
  },
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

await app.whenReady();
// The renderer needs no browser permissions (camera, geolocation, …); notifications go through main.
session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
createWindow();
app.on('activate', () => {
  if (BrowserWindow.getAllWindows().length === 0) createWindow();
});
