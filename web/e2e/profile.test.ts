// The profile picture: a real PNG uploaded through the page shows
// as the avatar; a text file renamed to .png and a 3 MB image are refused with clear messages, and
// nothing about the account or the stored files changes.

import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  browserSuite,
  type CreatedAccount,
  createAccount,
  openSignedIn,
  shot,
  toast,
} from './helpers.ts';
import type { RunningServer } from './server.ts';

/** A valid RGB PNG of `width`×`height`, filled by `pixels` (3 bytes a pixel), deflated at `level`. */
function png(width: number, height: number, pixels: (row: number) => Buffer, level = 9): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method, no interlace
  const rows = Array.from({ length: height }, (_, row) => Buffer.concat([Buffer.from([0]), pixels(row)]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** 16×16, a blue and orange stripe per row. */
const SMALL_PNG = png(16, 16, (row) => Buffer.alloc(16 * 3, row % 2 ? '3457d5' : 'ff9900', 'hex'));
/** 1000×1000 of noise, stored uncompressed: about 3 MB, a real image over the 2 MB limit. */
const LARGE_PNG = png(1000, 1000, () => randomBytes(1000 * 3), 0);
const RENAMED_TEXT = Buffer.from('Shopping list\n- milk\n- bread\n', 'utf8');

const NOT_AN_IMAGE = 'Avatar must be a PNG, JPG, GIF or WEBP image';
const TOO_LARGE = 'Avatar must be 2 MB or smaller';

let server: RunningServer;
let page: Page;
let user: CreatedAccount;

browserSuite('profile', (suite) => {
  ({ server, page } = suite);
});

beforeAll(async () => {
  user = await createAccount(server.baseUrl, {
    firstName: 'Alan',
    lastName: 'Turing',
    username: 'aturing',
    email: 'alan@example.com',
    password: 'Enigma#1912x',
  });
});

const pictureCard = () => page.getByRole('region', { name: 'Profile Picture' });
const avatarImage = () => pictureCard().locator('img');
const storedFiles = async () => (await readdir(path.join(server.dataDir, 'avatars')).catch(() => [])).sort();
const avatarUrl = async () =>
  (
    await api<{ user: { avatarUrl: string | null } }>(server.baseUrl, 'GET', '/api/auth/profile', {
      token: user.token,
    })
  ).user.avatarUrl;

/** Chooses a file through the Upload Picture button's file chooser, as a person does. */
async function choose(name: string, mimeType: string, buffer: Buffer) {
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    pictureCard().getByRole('button', { name: 'Upload Picture' }).click(),
  ]);
  await chooser.setFiles({ name, mimeType, buffer });
}

/** Uploads sent to the server while `action` runs, with their status codes. */
async function uploadsDuring(action: () => Promise<void>): Promise<number[]> {
  const statuses: number[] = [];
  const onResponse = (response: { url(): string; request(): { method(): string }; status(): number }) => {
    if (new URL(response.url()).pathname === '/api/auth/avatar' && response.request().method() === 'POST')
      statuses.push(response.status());
  };
  page.on('response', onResponse);
  try {
    await action();
  } finally {
    page.off('response', onResponse);
  }
  return statuses;
}

describe('profile picture', () => {
  let uploadedUrl: string;
  let filesAfterUpload: string[];

  it('shows the initials before any picture', async () => {
    await openSignedIn(page, server.baseUrl, user.token, '/profile');
    await pictureCard().getByText('PNG, JPG, GIF or WEBP up to 2 MB').waitFor();
    await pictureCard().getByText('AT', { exact: true }).waitFor();
    expect(await avatarImage().count()).toBe(0);
    expect(await storedFiles()).toEqual([]);
  });

  it('uploads a real PNG through the page and shows it as the avatar, here and in the top bar', async () => {
    const statuses = await uploadsDuring(async () => {
      await choose('me.png', 'image/png', SMALL_PNG);
      await toast(page, 'Profile picture updated');
    });
    expect(statuses).toEqual([200]);
    await avatarImage().waitFor();
    uploadedUrl = (await avatarImage().getAttribute('src')) ?? '';
    expect(uploadedUrl).toMatch(/^\/api\/avatars\/[a-f0-9]{32}\.png$/);
    // The browser decoded the served file as a 16×16 image.
    await page.waitForFunction(
      (img) => img instanceof HTMLImageElement && img.complete && img.naturalWidth === 16,
      await avatarImage().elementHandle(),
    );
    const topBarImage = page.getByRole('button', { name: /^Account menu/ }).locator('img');
    expect(await topBarImage.getAttribute('src')).toBe(uploadedUrl);
    await pictureCard().getByRole('button', { name: 'Remove' }).waitFor();

    filesAfterUpload = await storedFiles();
    expect(filesAfterUpload).toEqual([path.basename(uploadedUrl)]);
    const stored = await readFile(path.join(server.dataDir, 'avatars', path.basename(uploadedUrl)));
    expect(stored.equals(SMALL_PNG)).toBe(true);
    expect(await avatarUrl()).toBe(uploadedUrl);
    await shot(page, 'profile-avatar-uploaded');
  });

  it('refuses a text file renamed to .png with the server message, and changes nothing', async () => {
    const statuses = await uploadsDuring(async () => {
      await choose('holiday.png', 'image/png', RENAMED_TEXT);
      await toast(page, NOT_AN_IMAGE);
    });
    // The name and type looked right, so the page sent it: the server judged it by its content.
    expect(statuses).toEqual([400]);
    await shot(page, 'profile-avatar-not-an-image');
    expect(await avatarImage().getAttribute('src')).toBe(uploadedUrl);
    expect(await storedFiles()).toEqual(filesAfterUpload);
    expect(await avatarUrl()).toBe(uploadedUrl);
  });

  it('refuses a 3 MB image before sending it, and changes nothing', async () => {
    expect(LARGE_PNG.length).toBeGreaterThan(3_000_000);
    const statuses = await uploadsDuring(async () => {
      await choose('large.png', 'image/png', LARGE_PNG);
      await toast(page, TOO_LARGE);
    });
    expect(statuses).toEqual([]);
    await shot(page, 'profile-avatar-too-large');
    expect(await avatarImage().getAttribute('src')).toBe(uploadedUrl);
    expect(await storedFiles()).toEqual(filesAfterUpload);
    expect(await avatarUrl()).toBe(uploadedUrl);
  });

  it('the server refuses both files on its own too, with the same messages', async () => {
    // Sent from the page, as the web app would if it did not check first.
    const send = (name: string, bytes: Buffer) =>
      page.evaluate(
        async ({ name, base64, token }) => {
          const data = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
          const form = new FormData();
          form.append('avatar', new File([data], name, { type: 'image/png' }));
          const response = await fetch('/api/auth/avatar', {
            method: 'POST',
            headers: { authorization: `Bearer ${token}` },
            body: form,
          });
          return {
            status: response.status,
            message: ((await response.json()) as { message: string }).message,
          };
        },
        { name, base64: bytes.toString('base64'), token: user.token },
      );
    expect(await send('holiday.png', RENAMED_TEXT)).toEqual({ status: 400, message: NOT_AN_IMAGE });
    expect(await send('large.png', LARGE_PNG)).toEqual({ status: 413, message: TOO_LARGE });
    expect(await storedFiles()).toEqual(filesAfterUpload);
    expect(await avatarUrl()).toBe(uploadedUrl);
  });
});
