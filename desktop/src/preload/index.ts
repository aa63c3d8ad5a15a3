/** The one bridge between the sandboxed renderer and main: intent-level methods over fixed IPC channels. */
import { contextBridge, ipcRenderer } from 'electron';
import { createBridge } from './bridge.ts';

contextBridge.exposeInMainWorld('desktop', createBridge(ipcRenderer));
