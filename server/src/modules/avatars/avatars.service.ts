import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '../../lib/errors.ts';
import type { User } from '../auth/auth.schemas.ts';
import type { AuthService } from '../auth/auth.service.ts';
import { detectImageType, IMAGE_CONTENT_TYPES, type ImageExtension } from './image-type.ts';

export interface AvatarsDeps {
  /** Where avatar files live: `<BERTH_DATA_DIR>/avatars`. */
  dir: string;
  users: Pick<AuthService, 'replaceAvatar'>;
}

export type AvatarsService = ReturnType<typeof createAvatarsService>;

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
export const AVATAR_TOO_LARGE = 'Avatar must be 2 MB or smaller';
const NOT_AN_IMAGE = 'Avatar must be a PNG, JPG, GIF or WEBP image';
/** `avatarUrl` of a user is this prefix plus the file name; GET serves it. */
const URL_PREFIX = '/api/avatars/';
/** Random names only: nothing a client sends becomes part of a path. */
const FILE_NAME = /^[a-f0-9]{32}\.(png|jpg|gif|webp)$/;

export function createAvatarsService({ dir, users }: AvatarsDeps) {
  /** Deletes the file behind one of our avatar URLs; other values (null, foreign URLs) are left alone. */
  async function deleteFile(avatarUrl: string | null): Promise<void> {
    const name = avatarUrl?.startsWith(URL_PREFIX) ? avatarUrl.slice(URL_PREFIX.length) : '';
    if (FILE_NAME.test(name)) await rm(path.join(dir, name), { force: true });
  }

  return {
    /** Stores the image under a random name and makes it the user's avatar; the old file goes. */
    async upload(userId: string, file: File): Promise<User> {
      if (file.size > AVATAR_MAX_BYTES) throw new PayloadTooLargeError(AVATAR_TOO_LARGE);
      const bytes = new Uint8Array(await file.arrayBuffer());
      const type = detectImageType(bytes);
      if (!type) throw new ValidationError(NOT_AN_IMAGE, { fieldErrors: { avatar: [NOT_AN_IMAGE] } });

      const name = `${randomBytes(16).toString('hex')}.${type}`;
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, name), bytes, { flag: 'wx' });
      try {
        const { user, previous } = await users.replaceAvatar(userId, URL_PREFIX + name);
        await deleteFile(previous);
        return user;
      } catch (err) {
        await deleteFile(URL_PREFIX + name);
        throw err;
      }
    },

    async remove(userId: string): Promise<User> {
      const { user, previous } = await users.replaceAvatar(userId, null);
      await deleteFile(previous);
      return user;
    },

    /** The bytes and content type of an avatar file; NotFoundError for anything else. */
    async read(name: string): Promise<{ bytes: Uint8Array<ArrayBuffer>; contentType: string }> {
      if (!FILE_NAME.test(name)) throw new NotFoundError('Avatar not found');
      try {
        const bytes = new Uint8Array(await readFile(path.join(dir, name)));
        const ext = path.extname(name).slice(1) as ImageExtension;
        return { bytes, contentType: IMAGE_CONTENT_TYPES[ext] };
      } catch {
        throw new NotFoundError('Avatar not found');
      }
    },
  };
}
