import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from '@20minutes/s3rver';
import type { S3Settings } from '../src/backup-storage/s3-store.ts';

/**
 * A real S3-compatible server for a test (s3rver: the S3 API over HTTP, objects on a temp folder), on a
 * free loopback port, with one bucket; the AWS SDK talks to it as to any bucket.
 */
export async function startS3Server(bucket = 'berth-backups'): Promise<{
  settings: S3Settings;
  directory: string;
  stop(): Promise<void>;
}> {
  const directory = await mkdtemp(path.join(tmpdir(), 'berth-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    // Bucket-level calls from recent SDKs fail its signature check otherwise (object calls pass).
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    directory,
    settings: {
      endpoint: `http://127.0.0.1:${port}`,
      bucket,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    },
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
