import type { Readable, Writable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type Docker from 'dockerode';
import type { ArchiveReader, ArchiveWriter } from '../engine.ts';
import { pipePart } from '../local/host/archive-parts.ts';
import type { Region } from './region.ts';
import { currentTask, listTasks } from './swarm-api.ts';

/**
 * Work inside an instance's running container, on the node that runs it (a manager cannot exec on other
 * nodes): dumps for backups, loads for restores. Commands never take a secret on their command line.
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

export interface ExecOptions {
  user?: string;
  /** Where stdout goes (else collected and answered); it is not ended. */
  stdout?: Writable;
  /** Fed to stdin, then closed. */
  stdin?: Readable;
  env?: string[];
}

/**
 * Runs `cmd` in the container and resolves with its stdout (when not streamed elsewhere); rejects with
 * its stderr when it exits non-zero.
 */
export async function execIn(
  target: RunningContainer,
  cmd: string[],
  options: ExecOptions = {},
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
  const out = options.stdout ?? new PassThrough();
  const collected: Buffer[] = [];
  if (!options.stdout) out.on('data', (chunk: Buffer) => collected.push(chunk));
  let stderr = '';
  const err = new PassThrough();
  err.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  target.engine.modem.demuxStream(stream, out, err);
  const ended = new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
  });
  if (options.stdin) {
    await pipeline(options.stdin, stream as unknown as Writable, { end: true }).catch((error: Error) => {
      throw new Error(`feeding ${cmd[0]} failed: ${error.message}`);
    });
  }
  await ended;
  const { ExitCode } = (await exec.inspect()) as { ExitCode: number | null };
  if (ExitCode !== 0) throw new Error(`${cmd.join(' ')} exited with ${ExitCode}: ${stderr.trim()}`);
  return Buffer.concat(collected).toString();
}

/**
 * Streams `cmd`'s stdout in the container into the archive part `name` (a dump, a tar), gzipped on the
 * way; never held whole in memory. A failed command or a failed store tears the other side down.
 */
export async function execIntoPart(
  archive: ArchiveWriter,
  name: string,
  target: RunningContainer,
  cmd: string[],
  user: string,
): Promise<void> {
  const gzip = createGzip();
  await pipePart(archive, `${name}.gz`, gzip, async () => {
    await execIn(target, cmd, { user, stdout: gzip });
    gzip.end();
  });
}

/**
 * Reads a part that execIntoPart wrote, as the command's raw output. A failed read (storage gone mid-way)
 * fails the output too, so the restore's command is torn down instead of waiting for more input.
 */
export function partOutput(archive: ArchiveReader, name: string): Readable {
  const stored = archive.part(`${name}.gz`);
  const gunzip = createGunzip();
  stored.on('error', (error) => gunzip.destroy(error));
  return stored.pipe(gunzip);
}
