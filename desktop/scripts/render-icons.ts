/**
 * Renders the Berth logo (web/public/favicon.svg) into the PNG icons the desktop app and its packages use:
 * resources/tray-icon.png (+ @2x) for the tray, build/icons/<size>x<size>.png for Linux packages and
 * build/icon.png (1024 px) from which electron-builder makes the macOS .icns and the Windows .ico.
 * The PNGs are committed; run this again after changing the logo:
 *   node desktop/scripts/render-icons.ts
 * Uses Debian's Chromium through playwright-core (as the browser tests do), so no image tool is needed.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';

const desktop = new URL('../', import.meta.url);
const svg = await readFile(new URL('../web/public/favicon.svg', desktop), 'utf8');

const targets: [path: string, size: number][] = [
  ['resources/tray-icon.png', 32],
  ['resources/tray-icon@2x.png', 64],
  ...[16, 32, 48, 64, 128, 256, 512].map((size): [string, number] => [
    `build/icons/${size}x${size}.png`,
    size,
  ]),
  ['build/icon.png', 1024],
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage();
  for (const [path, size] of targets) {
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(
      `<html><body style="margin:0;background:transparent">` +
        `<img src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}" width="${size}" height="${size}" style="display:block">` +
        `</body></html>`,
    );
    await page.evaluate('document.images[0].decode()');
    const png = await page.screenshot({
      omitBackground: true,
      clip: { x: 0, y: 0, width: size, height: size },
    });
    const file = new URL(path, desktop);
    await mkdir(new URL('./', file), { recursive: true });
    await writeFile(file, png);
    console.log(`${path} (${size}×${size}, ${png.length} bytes)`);
  }
} finally {
  await browser.close();
}
