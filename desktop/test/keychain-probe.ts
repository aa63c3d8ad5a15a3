/**
 * Run by keychain.test.ts inside a private D-Bus session with gnome-keyring (not a test file itself).
 * Drives the real TokenStore over @napi-rs/keyring, then the real IPC handlers with the settings in a real
 * `conf` store (electron-store's backend), and prints one JSON line with what it observed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as keytar from '@napi-rs/keyring/keytar.js';
import Conf from 'conf';
import { registerIpcHandlers } from '../src/main/ipc-handlers.ts';
import { createSettings } from '../src/main/settings.ts';
import { createTokenStore, KEYCHAIN_SERVICE, sessionAccount } from '../src/main/token-store.ts';
import { IpcChannel } from '../src/shared/ipc-contract.ts';
import { createFakeIpc } from './fakes.ts';

const store = createTokenStore(keytar);
const account = sessionAccount('https://berth.example.com');
const otherAccount = sessionAccount('http://localhost:8080');

const before = await store.get(account);
await store.set(account, 'token-1');
const afterSet = await store.get(account);
await store.set(otherAccount, 'other-token');
await store.set(account, 'token-2');
const afterOverwrite = await store.get(account);
const accounts = (await keytar.findCredentials(KEYCHAIN_SERVICE))
  .map((credential) => credential.account)
  .sort();
const deleted = await store.delete(account);
const afterDelete = await store.get(account);
const deletedAgain = await store.delete(account);
const other = await store.get(otherAccount);
await store.delete(otherAccount);

// The app's own path: the renderer's calls through the IPC handlers, settings in a conf file.
const conf = new Conf<{ serverUrl?: string }>({
  projectName: 'berth-probe',
  cwd: join(process.env.HOME ?? '.', 'conf'),
});
const ipc = createFakeIpc();
const userId = '5f0c7a52-4a0e-4a43-9a43-0c6f3f7c1a01';
registerIpcHandlers(ipc.ipc, {
  tokenStore: store,
  settings: createSettings(conf),
  reloadApp: () => {},
  openExternal: async () => {},
  notify: () => {},
  reportInstanceCounts: () => {},
  // The server's answer for the probe's session (whose it is; session-user.test.ts asks over HTTP).
  sessionUser: async (_serverUrl, token) => (token === 'access-probe' ? userId : null),
});
const apiKey = 'berth_sk_probe_0123456789abcdef0123456789abcdef';
await ipc.invoke(IpcChannel.setServerUrl, 'https://berth.example.com/');
await ipc.invoke(IpcChannel.setToken, 'access-probe');
await ipc.invoke(IpcChannel.setRefreshToken, 'refresh-probe');
await ipc.invoke(IpcChannel.setSecret, 'apiKey', userId, apiKey);
const apiKeyViaIpc = await ipc.invoke(IpcChannel.getSecret, 'apiKey', userId);
// Read back from the keyring directly, not through our code.
const apiKeyInKeyring = await keytar.getPassword(
  KEYCHAIN_SERVICE,
  `apiKey:${userId}@https://berth.example.com`,
);
const appAccounts = (await keytar.findCredentials(KEYCHAIN_SERVICE)).map((c) => c.account).sort();
const settingsFile = readFileSync(conf.path, 'utf8');
const secretsInSettingsFile = [apiKey, 'access-probe', 'refresh-probe'].filter((secret) =>
  settingsFile.includes(secret),
);
await ipc.invoke(IpcChannel.deleteSecret, 'apiKey', userId);
const apiKeyAfterDelete = await keytar.getPassword(
  KEYCHAIN_SERVICE,
  `apiKey:${userId}@https://berth.example.com`,
);

console.log(
  JSON.stringify({
    before,
    afterSet,
    afterOverwrite,
    accounts,
    deleted,
    afterDelete,
    deletedAgain,
    other,
    apiKeyViaIpc: apiKeyViaIpc === apiKey,
    apiKeyInKeyring: apiKeyInKeyring === apiKey,
    appAccounts,
    settingsFile: JSON.parse(settingsFile),
    secretsInSettingsFile,
    apiKeyAfterDelete,
  }),
);
