import type Docker from 'dockerode';
import { capped, pipePart } from '../archive-parts.ts';
import type { ArchiveReader, ArchiveWriter } from '../engine.ts';
import { runHelper } from './node-exec.ts';
import { LABEL } from './services.ts';

/**
 * An instance's volume archived into a backup part, and brought back from one: a site's wp-content, an
 * n8n instance's data folder. Both run in a helper container on the volume's node (node-exec.ts
 * `runHelper`) as the instance's own user, never in the instance's container, with the volume read-only
 * for a backup, no network, `tar --sparse` (a hole is not read as zeros), the archive capped at the
 * volume's size both ways, and a deadline. A restore unpacks beside the live files on the same disk and
 * swaps them in only once the archive was whole: a broken archive leaves the files as they were.
 */

export interface VolumeArchive {
  /** The node's engine (where the volume is) and the instance it belongs to. */
  engine: Docker;
  instanceId: string;
  volume: string;
  /** An image with tar and gzip, and the uid:gid its files belong to. */
  image: string;
  user: string;
  /** What the archive holds: the volume's folder under this name (`wp-content`), or `.`, its contents. */
  member: string;
  part: string;
  /** The volume's size: nothing real can be larger. */
  maxBytes: number;
  /** Paths (relative, `./x`) left out of a backup. */
  exclude?: string[];
  /** In the customer's words: "The site's files". */
  what: string;
  stallMs?: number;
}

/** Where a helper mounts the volume: `/volume/<member>`, or `/volume/data` for `.`. */
const mountOf = (spec: VolumeArchive) => (spec.member === '.' ? '/volume/data' : `/volume/${spec.member}`);

const helperLabels = (spec: VolumeArchive) => ({
  [LABEL.instance]: spec.instanceId,
  [LABEL.role]: 'backup-helper',
});

export async function dumpVolume(spec: VolumeArchive, archive: ArchiveWriter): Promise<void> {
  const mount = mountOf(spec);
  const [cwd, member] = spec.member === '.' ? [mount, '.'] : ['/volume', spec.member];
  const files = capped(spec.maxBytes, `${spec.what} are larger than its storage`);
  await pipePart(archive, spec.part, files, () =>
    runHelper(
      spec.engine,
      {
        image: spec.image,
        user: spec.user,
        mounts: [{ volume: spec.volume, target: mount, readOnly: true }],
        cmd: [
          'tar',
          '--sparse',
          ...(spec.exclude ?? []).map((path) => `--exclude=${path}`),
          '-czf',
          '-',
          '-C',
          cwd,
          member,
        ],
        labels: helperLabels(spec),
      },
      { stdout: files, watch: { what: spec.what, stallMs: spec.stallMs } },
    ),
  );
}

export async function restoreVolume(spec: VolumeArchive, archive: ArchiveReader): Promise<void> {
  const mount = mountOf(spec);
  const input = archive.part(spec.part).pipe(capped(spec.maxBytes, 'The archive is larger than its storage'));
  await runHelper(
    spec.engine,
    {
      image: spec.image,
      user: spec.user,
      mounts: [{ volume: spec.volume, target: mount, readOnly: false }],
      cmd: [
        'sh',
        '-ec',
        `cd "$1"
rm -rf .berth-restore .berth-old; mkdir -m 700 .berth-restore
tar -xzf - -C .berth-restore --no-same-owner
test -d ".berth-restore/$2" || { echo "the backup holds no $2" >&2; exit 3; }
mkdir -m 700 .berth-old
find . -mindepth 1 -maxdepth 1 ! -name .berth-restore ! -name .berth-old -exec mv -t .berth-old {} +
find ".berth-restore/$2" -mindepth 1 -maxdepth 1 -exec mv -t . {} +
rm -rf .berth-restore .berth-old`,
        'restore',
        mount,
        spec.member,
      ],
      labels: helperLabels(spec),
    },
    { stdin: input, watch: { what: `Restoring ${spec.what.toLowerCase()}`, stallMs: 15 * 60_000 } },
  );
}
