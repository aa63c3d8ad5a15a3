// Backup and restore throughput (MB/s) of a WordPress site with 500 MB of uploads, through the real
// pipeline the backup jobs use: the local driver's WordPress engine dumps its database and wp-content as
// the site's own user, the platform's vault gzips nothing more but encrypts (AES-256-GCM chunks) and
// checks (SHA-256) every part, into a folder of this machine, then into an S3-compatible server on
// loopback (s3rver, which keeps objects on this disk: a real bucket adds the network). The restore reads
// each part back, checks it, and the engine replaces the site's database and files.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { backupKeyFrom } from '../src/backup-storage/archive-cipher.ts';
import { backupVault } from '../src/backup-storage/backup-vault.ts';
import { folderStore, type ObjectStore } from '../src/backup-storage/object-store.ts';
import { s3Store } from '../src/backup-storage/s3-store.ts';
import { missingHostPackages } from '../src/provisioning/local/host/host-packages.ts';
import { createLocalDriver } from '../src/provisioning/local/local-driver.ts';
import { siteNames, sitePaths } from '../src/provisioning/local/wordpress/site-names.ts';
import { startS3Server } from '../test/s3-server.ts';

const UPLOADS_MB = 500;
const MB = 1_048_576;

const missing = missingHostPackages();
if (missing.length > 0) {
  console.log(
    `\nbackup throughput: skipped, the local driver needs ${missing.join(' ')} (run the tests once as root)`,
  );
} else {
  // Directly under /tmp: the mysql user and the site's user must be able to traverse it. A 2 GiB disk: a
  // restore unpacks the files beside the old ones before it swaps them.
  const root = await mkdtemp('/tmp/berth-bench-backup-');
  const driver = createLocalDriver({ dataRoot: root, sites: { diskMb: 2048 }, log: () => {} });
  const s3 = await startS3Server();
  const stops: (() => Promise<unknown>)[] = [
    () => s3.stop(),
    () => driver.stop(),
    () => rm(root, { recursive: true, force: true }),
  ];
  try {
    await driver.start();
    const capabilities = await driver.capabilities();
    if (!capabilities.wordpress.available) {
      console.log(`\nbackup throughput: skipped (${capabilities.wordpress.reason})`);
    } else {
      const spec = {
        id: randomUUID(),
        title: 'Bench backups',
        adminUser: 'bench',
        adminEmail: 'bench@example.com',
        adminPassword: 'Bench#wordpress2026',
        phpVersion: '8.2',
      };
      const wordpress = driver.engine('wordpress');
      await wordpress.deploy(spec);
      stops.unshift(() => wordpress.delete(spec.id));
      // Uploads that do not compress, written by the site's own user.
      const uploads = path.join(sitePaths(root, spec.id).public, 'wp-content', 'uploads');
      const { unixUser } = siteNames(spec.id);
      execFileSync('runuser', ['-u', unixUser, '--', 'mkdir', '-p', uploads]);
      for (let i = 0; i < UPLOADS_MB / 100; i += 1) {
        execFileSync(
          'runuser',
          [
            '-u',
            unixUser,
            '--',
            'dd',
            'if=/dev/urandom',
            `of=${uploads}/photo-${i}.bin`,
            'bs=1M',
            'count=100',
          ],
          { stdio: 'ignore' },
        );
      }
      const backups = wordpress.backups;
      if (!backups) throw new Error('the WordPress engine has no backups');

      console.log(
        `\nBackup and restore of a WordPress site with ${UPLOADS_MB} MB of uploads (encrypted, checked)`,
      );
      const stores: [string, ObjectStore][] = [
        ['local folder', folderStore(path.join(root, 'bench-store'))],
        ['S3 (s3rver)', s3Store(s3.settings)],
      ];
      for (const [label, store] of stores) {
        const vault = backupVault({
          store,
          key: backupKeyFrom(randomBytes(32)),
          spoolDir: path.join(root, 'bench-spool'),
        });
        const prefix = `bench/${randomUUID()}`;
        const { archive, parts } = vault.writer(prefix);
        let started = performance.now();
        const facts = await backups.dump(spec, archive);
        const dumpSeconds = (performance.now() - started) / 1000;
        const bytes = parts.reduce((sum, part) => sum + part.plainSize, 0);

        started = performance.now();
        const opened = await vault.open(prefix, parts);
        try {
          await backups.restore(spec, opened.archive, facts);
        } finally {
          await opened.close();
        }
        const restoreSeconds = (performance.now() - started) / 1000;
        await vault.remove(prefix, parts);
        const rate = (seconds: number) => `${(bytes / MB / seconds).toFixed(1)} MB/s`;
        console.log(
          `  ${label.padEnd(13)} ${(bytes / MB).toFixed(0)} MB: backup ${dumpSeconds.toFixed(1)} s (${rate(dumpSeconds)}), restore ${restoreSeconds.toFixed(1)} s (${rate(restoreSeconds)})`,
        );
      }
    }
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
}
