import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { checkKey, ObjectMissingError, type ObjectStore } from './object-store.ts';

/** An S3-compatible bucket (BACKUP_S3_* in env.ts). */
export interface S3Settings {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Bucket in the path (MinIO, most self-hosted stores) rather than in the host name. */
  forcePathStyle: boolean;
}

/** Parts of a multipart upload: at most PART_BYTES × PARTS_AT_ONCE bytes are held in memory. */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_AT_ONCE = 2;

/**
 * Archives in an S3-compatible bucket, uploaded in parts as they are produced (lib-storage's Upload): a
 * backup of any size holds at most 16 MiB in memory. Checksums are computed only where a request needs
 * them, which every S3 clone accepts (recent SDKs add CRC32 checksums that some reject).
 */
export function s3Store(settings: S3Settings): ObjectStore {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
  const Bucket = settings.bucket;
  return {
    kind: 's3',
    offsite: true,
    description: `S3 bucket ${Bucket} at ${settings.endpoint}`,

    async put(key, body) {
      const upload = new Upload({
        client,
        params: { Bucket, Key: checkKey(key), Body: body },
        partSize: PART_BYTES,
        queueSize: PARTS_AT_ONCE,
        leavePartsOnError: false,
      });
      await upload.done();
    },

    async get(key) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket, Key: checkKey(key) }));
        if (!answer.Body) throw new ObjectMissingError(`No object ${key}`);
        return answer.Body as Readable;
      } catch (error) {
        if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey')
          throw new ObjectMissingError(`No object ${key}`);
        throw error;
      }
    },

    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: checkKey(key) }));
    },

    async list(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const item of page.Contents ?? []) if (item.Key) keys.push(item.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },

    async removeUnfinished(prefix) {
      try {
        const open = await client.send(new ListMultipartUploadsCommand({ Bucket, Prefix: prefix }));
        let removed = 0;
        for (const upload of open.Uploads ?? []) {
          if (!upload.Key || !upload.UploadId) continue;
          await client.send(
            new AbortMultipartUploadCommand({ Bucket, Key: upload.Key, UploadId: upload.UploadId }),
          );
          removed += 1;
        }
        return removed;
      } catch (error) {
        // Stores without the call (some S3 clones): their lifecycle rules clear such leftovers.
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 501)
          return 0;
        throw error;
      }
    },
  };
}
