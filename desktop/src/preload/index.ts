/** The one bridge between the sandboxed renderer and main: intent-level methods over fixed IPC channels. */
import { contextBridge, ipcRenderer } from 'electron';
import { type DesktopBridge, IpcChannel } from '../shared/ipc-contract.ts';

const bridge = {
  getToken: () => ipcRenderer.invoke(IpcChannel.getToken),
  setToken: (token) => ipcRenderer.invoke(IpcChannel.setToken, token),
  clearToken: () => ipcRenderer.invoke(IpcChannel.clearToken),
  getRefreshToken: () => ipcRenderer.invoke(IpcChannel.getRefreshToken),
  setRefreshToken: (token) => ipcRenderer.invoke(IpcChannel.setRefreshToken, token),
  getServerUrl: () => ipcRenderer.invoke(IpcChannel.getServerUrl),
  setServerUrl: (url) => ipcRenderer.invoke(IpcChannel.setServerUrl, url),
  openExternal: (url) => ipcRenderer.invoke(IpcChannel.openExternal, url),
  notify: (title, body) => ipcRenderer.invoke(IpcChannel.notify, title, body),
} satisfies DesktopBridge;

contextBridge.exposeInMainWorld('desktop', bridge);
