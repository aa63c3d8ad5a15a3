/**
 * The real keychain: TokenStore over @napi-rs/keyring against gnome-keyring's Secret Service, started in a
 * private D-Bus session with a throw-away HOME, so the developer's own keyring is never touched.
 * Needs the Debian/Ubuntu packages `dbus` and `gnome-keyring`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const probe = fileURLToPath(new URL('./keychain-probe.ts', import.meta.url));
const requiredCommands = { 'dbus-run-session': 'dbus', 'gnome-keyring-daemon': 'gnome-keyring' };

function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

describe('TokenStore over the real OS keychain', () => {
  let home = '';
  afterEach(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('sets, reads, overwrites and deletes tokens and the API key in gnome-keyring, never in the settings file', () => {
    const missing = Object.entries(requiredCommands).filter(([command]) => !commandExists(command));
    if (missing.length > 0) {
      throw new Error(
        `Keychain test needs ${missing.map(([command]) => command).join(' and ')}. ` +
          `Install with: apt-get install -y ${missing.map(([, pkg]) => pkg).join(' ')}`,
      );
    }

    home = mkdtempSync(join(tmpdir(), 'berth-keychain-'));
    const runtimeDir = join(home, 'run');
    mkdirSync(runtimeDir, { mode: 0o700 });
    const script =
      'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$PROBE_NODE" "$PROBE"';
    const result = spawnSync('dbus-run-session', ['--', 'sh', '-c', script], {
      // A minimal environment: a fresh HOME and runtime dir keep the daemon away from any real keyring.
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_RUNTIME_DIR: runtimeDir,
        PROBE_NODE: process.execPath, // the Node 24 running vitest; it strips the probe's types natively
        PROBE: probe,
      },
      encoding: 'utf8',
      timeout: 30_000,
    });

    const output = `status ${result.status}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
    expect(result.error, output).toBeUndefined();
    expect(result.status, output).toBe(0);
    const lastLine = result.stdout.trim().split('\n').at(-1) ?? '';
    expect(JSON.parse(lastLine)).toEqual({
      before: null,
      afterSet: 'token-1',
      afterOverwrite: 'token-2',
      accounts: ['session@http://localhost:8080', 'session@https://berth.example.com'],
      deleted: true,
      afterDelete: null,
      deletedAgain: false,
      other: 'other-token',
      // The app's path: the API key and both tokens are in the keyring, none in the settings file.
      apiKeyViaIpc: true,
      apiKeyInKeyring: true,
      appAccounts: [
        'apiKey:5f0c7a52-4a0e-4a43-9a43-0c6f3f7c1a01@https://berth.example.com',
        'refresh@https://berth.example.com',
        'session@https://berth.example.com',
      ],
      settingsFile: { serverUrl: 'https://berth.example.com' },
      secretsInSettingsFile: [],
      apiKeyAfterDelete: null,
    });
  }, 40_000);
});
