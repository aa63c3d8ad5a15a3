import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  answerOf,
  call,
  createTestApp,
  present,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { listen } from '../../../test/listen.ts';
import { GIF, JPG, MB, PNG, WEBP } from '../../../test/sample-images.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { detectImageType } from './image-type.ts';

let db: Db;
let app: TestApp;
let root: string;
let dir: string;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  root = await mkdtemp(path.join(tmpdir(), 'berth-avatars-test-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));
beforeEach(async () => {
  await truncateAll(db);
  dir = await mkdtemp(path.join(root, 'avatars-'));
  app = createTestApp(db, { avatarsDir: dir });
});

const files = async () => (await readdir(dir).catch(() => [])).sort();
const avatarUrlOf = async (userId: unknown) =>
  (
    await db
      .selectFrom('users')
      .select('avatar_url')
      .where('id', '=', String(userId))
      .executeTakeFirstOrThrow()
  ).avatar_url;

async function upload(token: string, file: Blob | string, name = 'me.png', field = 'avatar') {
  const form = new FormData();
  if (typeof file === 'string') form.set(field, file);
  else form.set(field, file, name);
  const res = await app.request('/api/auth/avatar', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return answerOf<'POST', '/api/auth/avatar'>(res);
}

describe('detectImageType', () => {
  it.each([
    [PNG, 'png'],
    [JPG, 'jpg'],
    [GIF, 'gif'],
    [WEBP, 'webp'],
    [Buffer.from('GIF88a not really'), undefined],
    [Buffer.from('RIFF....WAVEfmt '), undefined],
    [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), undefined],
    [Buffer.alloc(0), undefined],
  ])('reads the magic bytes (%#) as %s', (bytes, expected) => {
    expect(detectImageType(new Uint8Array(bytes))).toBe(expected);
  });
});

describe('POST /api/auth/avatar', () => {
  it.each([
    [PNG, 'image/png'],
    [JPG, 'image/jpeg'],
    [GIF, 'image/gif'],
    [WEBP, 'image/webp'],
  ])(
    'stores image %# under a random name and serves it as %s with a long cache',
    async (bytes, contentType) => {
      const { token, user } = await register(app);
      // The declared name and type say nothing: the content decides.
      const res = await upload(
        token,
        new Blob([bytes], { type: 'application/octet-stream' }),
        'whatever.bin',
      );
      expect(res.status).toBe(200);
      expect(res.json.message).toBe('Profile picture updated');
      const url = present(res.json.user.avatarUrl, 'an avatar URL');
      expect(url).toMatch(/^\/api\/avatars\/[0-9a-f]{32}\.(png|jpg|gif|webp)$/);
      expect(await avatarUrlOf(user.id)).toBe(url);
      expect(await files()).toEqual([url.split('/').at(-1)]);

      const served = await app.request(url);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(contentType);
      expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);
      expect((await call(app, 'GET', '/api/auth/profile', { token })).json.user.avatarUrl).toBe(url);
    },
  );

  it('deletes the old file when the avatar is replaced', async () => {
    const { token } = await register(app);
    const first = (await upload(token, new Blob([PNG]))).json.user.avatarUrl as string;
    const second = (await upload(token, new Blob([GIF]), 'me.gif')).json.user.avatarUrl as string;
    expect(second).not.toBe(first);
    expect(await files()).toEqual([second.split('/').at(-1)]);
    expect((await app.request(first)).status).toBe(404);
  });

  it('rejects a renamed text file and a 3 MB image, storing nothing and changing nothing', async () => {
    const { token, user } = await register(app);
    const kept = (await upload(token, new Blob([PNG]))).json.user.avatarUrl as string;

    const text = await upload(
      token,
      new Blob(['just some text, honest'], { type: 'image/png' }),
      'holiday.png',
    );
    expect(text.status).toBe(400);
    expect(text.json).toMatchObject({
      error: 'validation_error',
      message: 'Avatar must be a PNG, JPG, GIF or WEBP image',
    });

    const big = await upload(token, new Blob([PNG, Buffer.alloc(3 * MB)], { type: 'image/png' }), 'big.png');
    expect(big.status).toBe(413);
    expect(big.json).toEqual({ error: 'payload_too_large', message: 'Avatar must be 2 MB or smaller' });

    // Just over 2 MB fits the multipart allowance but not the rule for the file itself.
    const justOver = await upload(token, new Blob([PNG, Buffer.alloc(2 * MB)]), 'edge.png');
    expect(justOver.status).toBe(413);
    expect(justOver.json.message).toBe('Avatar must be 2 MB or smaller');

    expect(await avatarUrlOf(user.id)).toBe(kept);
    expect(await files()).toEqual([kept.split('/').at(-1)]);
  });

  it('refuses a huge upload over a real socket with a 413 JSON answer', async () => {
    const { token } = await register(app);
    const server = await listen(app);
    try {
      const form = new FormData();
      form.set('avatar', new Blob([PNG, Buffer.alloc(20 * MB)]), 'huge.png');
      const res = await fetch(`${server.url}/api/auth/avatar`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({
        error: 'payload_too_large',
        message: 'Avatar must be 2 MB or smaller',
      });
    } finally {
      await server.close();
    }
    expect(await files()).toEqual([]);
  });

  it('asks for a file when the field is missing or not a file', async () => {
    const { token } = await register(app);
    const text = await upload(token, 'not a file');
    expect(text.status).toBe(400);
    expect(text.json.details?.fieldErrors?.avatar).toEqual(['Please choose an image file']);
    const other = await upload(token, new Blob([PNG]), 'me.png', 'picture');
    expect(other.status).toBe(400);
  });

  it('needs a signed-in user', async () => {
    const form = new FormData();
    form.set('avatar', new Blob([PNG]), 'me.png');
    const res = await app.request('/api/auth/avatar', { method: 'POST', body: form });
    expect(res.status).toBe(401);
    expect(await files()).toEqual([]);
  });
});

describe('DELETE /api/auth/avatar', () => {
  it('removes the avatar and its file, and is harmless without one', async () => {
    const { token, user } = await register(app);
    await upload(token, new Blob([PNG]));
    const res = await call(app, 'DELETE', '/api/auth/avatar', { token });
    expect(res.status).toBe(200);
    expect(res.json.user.avatarUrl).toBeNull();
    expect(res.json.message).toBe('Profile picture removed');
    expect(await avatarUrlOf(user.id)).toBeNull();
    expect(await files()).toEqual([]);

    const again = await call(app, 'DELETE', '/api/auth/avatar', { token });
    expect(again.status).toBe(200);
    expect(again.json.user.avatarUrl).toBeNull();
  });
});

describe('GET /api/avatars/{file}', () => {
  it('answers 404 for unknown names and anything that is not an avatar name', async () => {
    for (const name of [`${'a'.repeat(32)}.png`, '..%2F..%2Fetc%2Fpasswd', 'x.svg', '%2E%2E%2Fsecrets']) {
      const res = await call(app, 'GET', `/api/avatars/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.json.error, name).toBe('not_found');
    }
  });

  it('keeps files under the avatars folder only', async () => {
    const { token } = await register(app);
    const url = (await upload(token, new Blob([PNG]))).json.user.avatarUrl as string;
    const stored = await readFile(path.join(dir, url.split('/').at(-1) as string));
    expect(stored).toEqual(PNG);
  });
});
