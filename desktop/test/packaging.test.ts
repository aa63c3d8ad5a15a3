/**
 * The packaging configuration (electron-builder.yml) cannot be exercised here: electron-builder downloads
 * the Electron release and its target tools from GitHub. This checks what can be checked offline: the file
 * parses, names the app and the four targets, and everything it references exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const desktop = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, desktop));

interface BuilderConfig {
  appId?: string;
  productName?: string;
  directories?: { buildResources?: string; output?: string };
  files?: string[];
  linux?: { target?: string[]; icon?: string };
  mac?: { target?: string[]; icon?: string };
  win?: { target?: string[]; icon?: string };
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(path: string): { width: number; height: number } {
  const png = read(path);
  expect(png.subarray(1, 4).toString('latin1'), `${path} is a PNG`).toBe('PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('electron-builder.yml', () => {
  const config = parse(read('electron-builder.yml').toString('utf8')) as BuilderConfig;
  const pkg = JSON.parse(read('package.json').toString('utf8')) as {
    main: string;
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };

  it('names the app Berth with a reverse-DNS app id', () => {
    expect(config.productName).toBe('Berth');
    expect(config.appId).toBe('com.berth.desktop');
  });

  it('targets AppImage and deb on Linux, dmg on macOS and nsis on Windows', () => {
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
  });

  it('references icons that exist and are large enough for each platform', () => {
    expect(config.directories?.buildResources).toBe('build');
    expect(config.linux?.icon).toBe('build/icons');
    for (const size of [16, 32, 48, 64, 128, 256, 512]) {
      expect(pngSize(`build/icons/${size}x${size}.png`)).toEqual({ width: size, height: size });
    }
    // electron-builder makes the .icns (needs ≥ 512 px) and the .ico (needs ≥ 256 px) from one PNG.
    expect(config.mac?.icon).toBe('build/icon.png');
    expect(config.win?.icon).toBe('build/icon.png');
    expect(pngSize('build/icon.png')).toEqual({ width: 1024, height: 1024 });
  });

  it('packs the built app and the tray icon, whose path the main process resolves at run time', () => {
    expect(config.files).toEqual(expect.arrayContaining(['out/**', 'resources/**', 'package.json']));
    expect(pkg.main).toBe('./out/main/index.js');
    expect(pngSize('resources/tray-icon.png')).toEqual({ width: 32, height: 32 });
    expect(pngSize('resources/tray-icon@2x.png')).toEqual({ width: 64, height: 64 });
    expect(readFileSync(new URL('src/main/index.ts', desktop), 'utf8')).toContain(
      "'../../resources/tray-icon.png?asset'",
    );
  });

  it('has a package script with a pinned electron-builder, which is not installed with the project', () => {
    expect(pkg.scripts.package).toMatch(
      /npx --yes electron-builder@\d+\.\d+\.\d+ --config electron-builder\.yml/,
    );
    expect(pkg.dependencies).not.toHaveProperty('electron-builder');
    expect(pkg.devDependencies).not.toHaveProperty('electron-builder');
    // Only what the main process loads at run time ships as a dependency; the renderer is bundled.
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@napi-rs/keyring', 'electron-store']);
    expect(existsSync(new URL('node_modules/electron-builder', new URL('../', desktop)))).toBe(false);
  });
});
