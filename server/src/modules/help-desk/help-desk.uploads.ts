import type { Db, DbOrTx } from '../../db/database.ts';
import type { HelpUploadRow } from '../../db/tables/help-desk.ts';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '../../lib/errors.ts';
import { detectImageType, IMAGE_CONTENT_TYPES } from '../avatars/image-type.ts';
import { FILE_NAME, fileNameOf, type HelpFiles, URL_PREFIX } from './help-desk.files.ts';
import {
  deleteOrphanUploads,
  deleteUploads,
  findUpload,
  findUploadWithOwner,
  insertUpload,
  knownFileNames,
  lockUploads,
} from './help-desk.repository.ts';
import type { Attachment } from './help-desk.schemas.ts';

export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
export const UPLOAD_TOO_LARGE = 'Image must be 5 MB or smaller';
const NOT_AN_IMAGE = 'Only PNG, JPEG, GIF or WebP images can be attached';
/** Uploads never attached to a ticket are deleted after this long. */
export const ORPHAN_AGE_MS = 24 * 60 * 60_000;
const UPLOAD_NOT_FOUND = 'File not found';

export const attachmentOf = (u: HelpUploadRow): Attachment => ({
  url: URL_PREFIX + u.file_name,
  name: u.original_name,
});

/** A display name for an uploaded file: the client's name, cut down, or `image.<ext>`. */
function displayName(name: string, ext: string): string {
  // Control characters and path separators are dropped (the name is only ever displayed).
  const clean = Array.from(name)
    .filter((ch) => ch >= ' ' && ch !== '\u007f' && ch !== '/' && ch !== '\\')
    .join('')
    .trim()
    .slice(0, 120);
  return clean || `image.${ext}`;
}

/**
 * The images of the help desk (help-desk.service.ts): stored unattached when uploaded, attached by a
 * ticket or an answer, read only by who may see them, and swept when no ticket took them.
 */
export function helpDeskUploads({ db, now, files }: { db: Db; now: () => Date; files: HelpFiles }) {
  /**
   * The uploads named by `refs`, locked: each must be `allowed` (else a 400 naming it). Duplicates
   * count once.
   */
  async function resolveAttachments(
    tx: DbOrTx,
    refs: readonly { url: string; name?: string }[],
    allowed: (u: HelpUploadRow) => boolean,
  ): Promise<HelpUploadRow[]> {
    const names = [...new Set(refs.map((r) => fileNameOf(r.url) ?? r.url))];
    const rows = await lockUploads(
      tx,
      names.filter((n) => FILE_NAME.test(n)),
    );
    const byName = new Map(rows.map((r) => [r.file_name, r]));
    return names.map((name, i) => {
      const row = byName.get(name);
      if (!row || !allowed(row)) {
        const label = refs[i]?.name ?? name;
        throw new ValidationError(`Attachment ${label} was not found; upload it again`, {
          fieldErrors: { attachments: ['Attachment not found'] },
        });
      }
      return row;
    });
  }

  return {
    resolveAttachments,

    /** Stores one image (type judged by its bytes) unattached; a submit or an answer attaches it. */
    async upload(userId: string, file: File): Promise<Attachment> {
      if (file.size > UPLOAD_MAX_BYTES) throw new PayloadTooLargeError(UPLOAD_TOO_LARGE);
      const bytes = new Uint8Array(await file.arrayBuffer());
      const ext = detectImageType(bytes);
      if (!ext) throw new ValidationError(NOT_AN_IMAGE, { fieldErrors: { file: [NOT_AN_IMAGE] } });
      const fileName = await files.write(bytes, ext);
      try {
        const row = await insertUpload(db, {
          file_name: fileName,
          original_name: displayName(file.name, ext),
          content_type: IMAGE_CONTENT_TYPES[ext],
          size: bytes.byteLength,
          uploaded_by: userId,
        });
        return attachmentOf(row);
      } catch (error) {
        await files.remove([fileName]);
        throw error;
      }
    },

    /** Deletes one of the user's uploads that no ticket uses yet (removed from a form before sending). */
    async removeUpload(userId: string, fileName: string): Promise<void> {
      const row = FILE_NAME.test(fileName) ? await findUpload(db, fileName) : undefined;
      if (!row || row.uploaded_by !== userId || row.ticket_id !== null)
        throw new NotFoundError(UPLOAD_NOT_FOUND);
      await deleteUploads(db, [row.id]);
      await files.remove([row.file_name]);
    },

    /**
     * An uploaded image for the uploader, the owner of the ticket it belongs to, or an admin; everyone
     * else gets the same 404 as for a file that does not exist.
     */
    async readUpload(
      user: { id: string; isAdmin: boolean },
      fileName: string,
    ): Promise<{ bytes: Uint8Array<ArrayBuffer>; contentType: string }> {
      const row = FILE_NAME.test(fileName) ? await findUploadWithOwner(db, fileName) : undefined;
      const allowed = row && (user.isAdmin || row.uploaded_by === user.id || row.ticket_owner === user.id);
      const bytes = allowed ? await files.read(row.file_name) : undefined;
      if (!row || !bytes) throw new NotFoundError(UPLOAD_NOT_FOUND);
      return { bytes, contentType: row.content_type };
    },

    /**
     * Deletes uploads no ticket took within ORPHAN_AGE_MS (a form left without sending), and files on
     * disk that no row knows (a crash between writing and recording). Answers how many files went.
     */
    async sweepOrphans(): Promise<number> {
      const before = new Date(now().getTime() - ORPHAN_AGE_MS);
      const names = await deleteOrphanUploads(db, before, 1000);
      const onDisk = await files.listOlderThan(before);
      const known = await knownFileNames(db, onDisk);
      const strays = onDisk.filter((n) => !known.has(n));
      await files.remove([...names, ...strays]);
      return names.length + strays.length;
    },
  };
}
