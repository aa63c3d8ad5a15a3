import { PassThrough, type Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Docker from 'dockerode';
import { type WatchdogOptions, watchdog } from '../../lib/stream-watchdog.ts';
import type { Region } from './region.ts';
import { currentTask, listTasks } from './swarm-api.ts';

/**
 * Work on a node through its own Engine API: a command run in an instance's running container (`execIn`:
 * small, trusted chores such as the front door's reload or a database's DDL as its server's admin), and
 * short-lived helper containers (`runHelper`) for everything that reads or writes what a tenant controls
 * (backups and restores): they run in a PID namespace of their own, so the tenant's code can neither
 * see, signal nor trace them, with no capability, no way to gain one, their own limits and a deadline.
 *
 * Both stream with backpressure end to end: Docker's multiplexed stream is taken apart by a Transform
 * inside `pipeline()` (never `demuxStream`, which ignores `write()`'s answer), so a slow consumer (gzip,
 * the backup store) pauses the socket instead of piling bytes up in memory.
 */

export interface RunningContainer {
  engine: Docker;
  container: Docker.Container;
  nodeId: string;
}

export async function runningContainer(region: Region, service: string): Promise<RunningContainer> {
  const task = currentTask(await listTasks(region.manager, { service: [service] }));
  const containerId = task?.Status.ContainerStatus?.ContainerID;
  if (task?.Status.State !== 'running' || !containerId || !task.NodeID) {
    throw new Error(`${service} is not running (its task is ${task?.Status.State ?? 'missing'})`);
  }
  const node = await region.nodeById(task.NodeID);
  if (!node) throw new Error(`The node of ${service} is gone`);
  const engine = region.nodeEngine(node);
  return { engine, container: engine.getContainer(containerId), nodeId: task.NodeID };
}

/**
 * Docker's stream of a container without a TTY: frames of an 8-byte header (stream type 1 stdout or 2
 * stderr, three zero bytes, a big-endian uint32 length) and their payload. Stdout's payload goes on;
 * stderr's is kept (its last 4000 characters) for the error message.
 */
class Demultiplexer extends Transform {
  stderr = '';
  private pending: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 8) {
      const type = this.pending[0];
      const length = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + length) break;
      const payload = this.pending.subarray(8, 8 + length);
      this.pending = this.pending.subarray(8 + length);
      if (type === 2) this.stderr = (this.stderr + payload.toString()).slice(-4000);
      else if (type === 1) this.push(payload);
    }
    done();
  }

  override _flush(done: (error?: Error | null) => void) {
    done(this.pending.length > 0 ? new Error('The container stream ended inside a frame') : null);
  }
}

export interface StreamIo {
  /** Fed to stdin, then closed. */
  stdin?: Readable;
  /** Where stdout goes (ended with it); else collected and answered. */
  stdout?: Writable;
  /** A deadline on the transfer (see stream-watchdog.ts); absent: none. */
  watch?: Omit<WatchdogOptions, 'abort'>;
}

/**
 * Pipes the hijacked stream: stdin in, stdout out through the demultiplexer, with the watchdog's taps.
 * Answers the collected stdout (when not streamed elsewhere) and the stderr tail; `abort` tears the
 * process down when the watchdog fires.
 */
async function pump(
  stream: NodeJS.ReadWriteStream,
  io: StreamIo,
  abort: () => void,
): Promise<{ stdout: string; stderr: string; stopped?: Error }> {
  const demux = new Demultiplexer();
  const socket = stream as unknown as Readable & Writable;
  const watch = io.watch
    ? watchdog({
        ...io.watch,
        abort: (error) => {
          socket.destroy(error);
          abort();
        },
      })
    : undefined;
  const collected: Buffer[] = [];
  const out =
    io.stdout ??
    new PassThrough().on('data', (chunk: Buffer) => {
      collected.push(chunk);
    });
  const tap = () => watch?.tap() ?? new PassThrough();
  const flows = [pipeline(socket, tap(), demux, out)];
  if (io.stdin) flows.push(pipeline(io.stdin, tap(), socket, { end: true }));
  const results = await Promise.allSettled(flows);
  watch?.stop();
  if (watch?.stopped) return { stdout: '', stderr: demux.stderr, stopped: watch.stopped };
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return { stdout: Buffer.concat(collected).toString(), stderr: demux.stderr };
}

/**
 * Runs `cmd` in a running container and resolves with its stdout (when not streamed elsewhere); rejects
 * with its stderr when it exits non-zero. For trusted chores only: anything that reads or writes what a
 * tenant controls runs in a helper container (runHelper).
 */
export async function execIn(
  target: RunningContainer,
  cmd: string[],
  options: StreamIo & { user?: string; env?: string[] } = {},
): Promise<string> {
  const exec = await target.container.exec({
    Cmd: cmd,
    User: options.user ?? '',
    Env: options.env,
    AttachStdout: true,
    AttachStderr: true,
    AttachStdin: options.stdin !== undefined,
  });
  const stream = (await exec.start({
    hijack: true,
    stdin: options.stdin !== undefined,
  })) as NodeJS.ReadWriteStream;
  const { stdout, stderr, stopped } = await pump(stream, options, () => {});
  if (stopped) throw stopped;
  const { ExitCode } = (await exec.inspect()) as { ExitCode: number | null };
  if (ExitCode !== 0) throw new Error(`${cmd.join(' ')} exited with ${ExitCode}: ${stderr.trim()}`);
  return stdout;
}

/** A mount of a helper container: an instance's volume, read-only unless it restores into it. */
export interface HelperMount {
  volume: string;
  target: string;
  readOnly: boolean;
}

export interface HelperSpec {
  image: string;
  cmd: string[];
  /** A numeric uid:gid or a user of the image; never root for what touches a tenant's files. */
  user: string;
  mounts?: HelperMount[];
  /** A network to join (a site's own, to reach its database); absent: none at all. */
  network?: string;
  labels: Record<string, string>;
  memoryMb?: number;
  cpus?: number;
}

/** Processes a helper may run (tar and gzip, a shell, a client). */
const HELPER_PIDS = 64;

/** A helper container running, its pipes attached (runHelper's, and an SFTP session's). */
export interface HelperProcess {
  /** Into the container's stdin (ending it closes the container's stdin). */
  stdin: Writable;
  /** The container's stdout, demultiplexed, with backpressure. */
  stdout: Readable;
  /** The last 4000 characters of its stderr. */
  stderr(): string;
  /** Its exit code once it ended (137 when killed). */
  exited: Promise<number>;
  /** Kills it now (it is removed once it ended). */
  kill(): void;
}

/**
 * Starts `spec` in a fresh container on `engine`'s node (where the volumes are), its stdio attached. It
 * has no capability and cannot gain one, a read-only root with a small /tmp, its own memory, CPU and
 * process limits, and no network unless one is named; it is removed once it ended, whatever happens.
 */
export async function openHelper(
  engine: Docker,
  spec: HelperSpec,
  options: { stdin: boolean },
): Promise<HelperProcess> {
  const container = await engine.createContainer({
    Image: spec.image,
    Entrypoint: [],
    Cmd: spec.cmd,
    User: spec.user,
    Labels: spec.labels,
    AttachStdout: true,
    AttachStderr: true,
    AttachStdin: options.stdin,
    OpenStdin: options.stdin,
    StdinOnce: options.stdin,
    Tty: false,
    NetworkDisabled: spec.network === undefined,
    HostConfig: {
      NetworkMode: spec.network ?? 'none',
      Mounts: (spec.mounts ?? []).map((mount) => ({
        Type: 'volume' as const,
        Source: mount.volume,
        Target: mount.target,
        ReadOnly: mount.readOnly,
      })),
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': 'rw,noexec,nosuid,nodev,size=64m' },
      Memory: (spec.memoryMb ?? 256) * 1024 * 1024,
      MemorySwap: (spec.memoryMb ?? 256) * 1024 * 1024,
      NanoCpus: Math.round((spec.cpus ?? 0.5) * 1e9),
      PidsLimit: HELPER_PIDS,
    },
  });
  const remove = () => container.remove({ force: true }).catch(() => {});
  try {
    const socket = (await container.attach({
      stream: true,
      stdin: options.stdin,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as unknown as Readable & Writable;
    const demux = new Demultiplexer();
    socket.on('error', (error) => demux.destroy(error));
    socket.pipe(demux);
    await container.start();
    const exited = (container.wait() as Promise<{ StatusCode: number }>).then(
      async ({ StatusCode }) => {
        await remove();
        return StatusCode;
      },
      async (error: unknown) => {
        await remove();
        throw error;
      },
    );
    return {
      stdin: socket,
      stdout: demux,
      stderr: () => demux.stderr,
      exited,
      kill: () => {
        container.kill().catch(() => {});
      },
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * Runs `spec` in a helper container (openHelper) to its end and resolves with its stdout when not
 * streamed elsewhere. A stalled transfer kills it (`io.watch`).
 */
export async function runHelper(engine: Docker, spec: HelperSpec, io: StreamIo = {}): Promise<string> {
  const helper = await openHelper(engine, spec, { stdin: io.stdin !== undefined });
  const watch = io.watch
    ? watchdog({
        ...io.watch,
        abort: (error) => {
          helper.stdout.destroy(error);
          helper.stdin.destroy(error);
          helper.kill();
        },
      })
    : undefined;
  const collected: Buffer[] = [];
  const out =
    io.stdout ??
    new PassThrough().on('data', (chunk: Buffer) => {
      collected.push(chunk);
    });
  const tap = () => watch?.tap() ?? new PassThrough();
  const flows = [pipeline(helper.stdout, tap(), out)];
  if (io.stdin) flows.push(pipeline(io.stdin, tap(), helper.stdin, { end: true }));
  const [piped, exit] = await Promise.all([
    Promise.allSettled(flows),
    helper.exited.then(
      (code) => ({ code }),
      (error: unknown) => ({ error }),
    ),
  ]);
  watch?.stop();
  // The watchdog's reason first, then the command's own failure, then a broken stream.
  if (watch?.stopped) throw watch.stopped;
  if ('error' in exit) throw exit.error;
  if (exit.code !== 0) {
    throw new Error(
      `${spec.cmd.join(' ').slice(0, 200)} exited with ${exit.code}: ${helper.stderr().trim()}`,
    );
  }
  for (const result of piped) if (result.status === 'rejected') throw result.reason;
  return Buffer.concat(collected).toString();
}
