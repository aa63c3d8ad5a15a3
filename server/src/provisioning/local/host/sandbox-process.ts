import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * What every tenant sandbox shares, whichever kind (a site's, wordpress/site-sandbox.ts; an n8n
 * instance's, n8n/n8n-sandbox.ts): bubblewrap, and running a command in it to the end: its input fed,
 * its output collected or piped, a time limit, and its failure with its stderr.
 */

export const BWRAP = '/usr/bin/bwrap';

/** How a sandboxed command is run: what it reads, where its output goes, how long it may take. */
export interface SandboxIo {
  /** What the command reads on stdin: text, or a stream (e.g. an archive being restored). */
  input?: string | Readable;
  /** Where its stdout goes (e.g. an archive being written); otherwise it is collected (last 64 kB). */
  output?: Writable;
  /** Kills it after this long. Default 10 minutes. */
  timeoutMs?: number;
}

export interface SandboxResult {
  stdout: string;
}

/** A command in the sandbox failed; `output` holds its stderr (for the log, not for customers). */
export class SandboxCommandError extends Error {
  readonly command: string;
  readonly code: number | null;
  readonly output: string;

  constructor(command: string, code: number | null, output: string) {
    super(`${command} exited with ${code ?? 'a signal'} in the sandbox: ${output.trim().slice(-2000)}`);
    this.command = command;
    this.code = code;
    this.output = output;
  }
}

/**
 * Feeds a sandboxed child its input, collects or pipes its output, kills it after `run.timeoutMs` and
 * settles when it ended: its stdout, or SandboxCommandError with its stderr when it failed.
 */
export async function settleSandboxed(
  child: ChildProcessWithoutNullStreams,
  command: string[],
  run: SandboxIo,
): Promise<SandboxResult> {
  let stdout = '';
  let stderr = '';
  const keep = (text: string, chunk: Buffer) => (text + chunk.toString()).slice(-65_536);
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = keep(stderr, chunk);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs ?? 600_000);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  const streams: Promise<void>[] = [];
  if (run.input === undefined) child.stdin.end();
  else if (typeof run.input === 'string') child.stdin.end(run.input);
  else streams.push(pipeline(run.input, child.stdin));
  if (run.output) streams.push(pipeline(child.stdout, run.output));
  else
    child.stdout.on('data', (chunk: Buffer) => {
      stdout = keep(stdout, chunk);
    });
  try {
    const [code, ...piped] = await Promise.allSettled([exited, ...streams]);
    if (code.status === 'rejected') throw code.reason;
    if (code.value !== 0) throw new SandboxCommandError(command.join(' '), code.value, stderr);
    for (const result of piped) if (result.status === 'rejected') throw result.reason;
    return { stdout };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Shell: writes stdin to the file named by `$1` through a new file of an unpredictable name in the same
 * folder (mktemp: created exclusively, never an existing name or link), then renamed over `$1` (which
 * replaces whatever is there, a link included, without following it). `$2`: the file mode.
 */
export const WRITE_FILE =
  'tmp=$(mktemp "$1.berth-XXXXXXXX"); cat > "$tmp"; chmod "$2" "$tmp"; mv -f "$tmp" "$1"';

/** A shell script run in the sandbox with `sh -c`, arguments as $1…; `set -eu` first. */
export const shell = (script: string, ...args: string[]): string[] => [
  '/bin/sh',
  '-c',
  `set -eu\n${script}`,
  'sh',
  ...args,
];
