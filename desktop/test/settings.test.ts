import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { afterEach, describe, expect, it } from 'vitest';
import { createSettings, DEFAULT_SERVER_URL } from '../src/main/settings.ts';
import { createMemorySettingsStore } from './fakes.ts';

describe('settings: server URL', () => {
  it('defaults to http://localhost:8080', () => {
    expect(createSettings(createMemorySettingsStore()).getServerUrl()).toBe(DEFAULT_SERVER_URL);
    expect(DEFAULT_SERVER_URL).toBe('http://localhost:8080');
  });

  it.each([
    ['https://berth.example.com', 'https://berth.example.com'],
    ['https://berth.example.com/', 'https://berth.example.com'],
    ['http://192.168.1.10:8080', 'http://192.168.1.10:8080'],
    ['https://example.com/berth/', 'https://example.com/berth'],
    ['HTTPS://Berth.Example.COM', 'https://berth.example.com'],
  ])('stores %s as %s', (input, stored) => {
    const store = createMemorySettingsStore();
    const settings = createSettings(store);
    settings.setServerUrl(input);
    expect(settings.getServerUrl()).toBe(stored);
    expect(store.data.serverUrl).toBe(stored);
  });

  it.each([
    ['not a URL', 'berth.example.com'],
    ['no scheme, host:port', 'localhost:8080'],
    ['ftp', 'ftp://example.com'],
    ['file', 'file:///etc/passwd'],
    ['javascript', 'javascript:alert(1)'],
    ['credentials', 'https://user:secret@example.com'],
    ['query string', 'https://example.com/?a=1'],
    ['fragment', 'https://example.com/#x'],
    ['empty', ''],
  ])('rejects %s (%s) and keeps the previous value', (_name, input) => {
    const store = createMemorySettingsStore();
    const settings = createSettings(store);
    settings.setServerUrl('https://berth.example.com');
    expect(() => settings.setServerUrl(input)).toThrow(/http\(s\)/);
    expect(settings.getServerUrl()).toBe('https://berth.example.com');
  });

  it.each([
    ['a number', 42],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['garbage', 'not a url'],
  ])('falls back to the default when the stored value is %s', (_name, value) => {
    expect(createSettings(createMemorySettingsStore({ serverUrl: value })).getServerUrl()).toBe(
      DEFAULT_SERVER_URL,
    );
  });
});

describe('settings over a real conf store (the backend of electron-store)', () => {
  let dir = '';
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('persists the server URL across instances', () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-settings-'));
    const open = () =>
      createSettings(new Conf<{ serverUrl?: string }>({ projectName: 'berth-test', cwd: dir }));
    open().setServerUrl('https://berth.example.com/');
    expect(open().getServerUrl()).toBe('https://berth.example.com');
  });
});
