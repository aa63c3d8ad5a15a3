import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type WatchdogOptions, watchdog } from './stream-watchdog.ts';

/** Node's ways of saying the program closed its stdin before the input ended. */
const INPUT_CUT_SHORT = new Set(['EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);

/**
 * Runs a client program (pg_dump, psql, mariadb-dump, …) to its end, its stdin from `io.input` and its
 * stdout into `io.output`, streamed; rejects with the end of its stderr when it fails. With `io.watch`,
 * a transfer that makes no progress (or runs past its budget) is killed and fails with the watchdog's
 * words: what a tenant's database does must never hold a job forever. `io.readsPart`: the program may
 * stop reading its input before its end (pg_restore -l reads only the table of contents), which is then
 * no error when it exits with 0.
 */
export async function runClient(
  command: string,
  args: string[],
  env: Record<string, string>,
  io: {
    input?: Readable;
    output?: Writable;
    readsPart?: boolean;
    watch?: Omit<WatchdogOptions, 'abort'>;
  } = {},
): Promise<void> {
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const watch = io.watch && watchdog({ ...io.watch, abort: () => child.kill('SIGKILL') });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const streams: Promise<void>[] = [];
  if (io.input)
    streams.push(
      (watch ? pipeline(io.input, watch.tap(), child.stdin) : pipeline(io.input, child.stdin)).catch(
        (error: unknown) => {
          const code = (error as { code?: unknown }).code;
          if (!(io.readsPart && typeof code === 'string' && INPUT_CUT_SHORT.has(code))) throw error;
        },
      ),
    );
  else child.stdin.end();
  if (io.output)
    streams.push(watch ? pipeline(child.stdout, watch.tap(), io.output) : pipeline(child.stdout, io.output));
  else child.stdout.resume();
  const [code, ...piped] = await Promise.allSettled([exited, ...streams]);
  watch?.stop();
  if (watch?.stopped) throw watch.stopped;
  if (code.status === 'rejected') throw code.reason;
  if (code.value !== 0)
    throw new Error(`${command.split('/').pop()} exited with ${code.value}: ${stderr.trim()}`);
  for (const result of piped) if (result.status === 'rejected') throw result.reason;
}
