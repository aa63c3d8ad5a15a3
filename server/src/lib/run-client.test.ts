import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runClient } from './run-client.ts';
import { TransferStoppedError } from './stream-watchdog.ts';

/**
 * A client program whose other end stalls (a tenant's lock, a stopped process) must not hold its job
 * forever: runClient's watchdog kills it and fails with the customer's words.
 */

const ENV = { PATH: '/usr/bin:/bin' };

/** Whether a process with this pid still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runClient with a watchdog', () => {
  it('kills a program that writes nothing for longer than the stall limit, with the reason', async () => {
    const output = new PassThrough();
    output.resume();
    // The shell prints its pid, then waits forever without a byte more.
    const seen: string[] = [];
    output.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
    const run = runClient('/bin/sh', ['-c', 'echo $$; exec sleep 600'], ENV, {
      output,
      watch: { what: 'The database dump', stallMs: 400 },
    });
    await expect(run).rejects.toThrow(TransferStoppedError);
    await expect(run).rejects.toThrow(
      'The database dump made no progress for 0.4 s and the transfer was stopped',
    );
    const pid = Number(seen.join('').trim());
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });

  it('lets a slow but steady transfer finish, and stops one past its budget', async () => {
    const output = new PassThrough();
    const chunks: Buffer[] = [];
    output.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A byte every 100 ms for a second: never 400 ms without progress.
    await runClient('/bin/sh', ['-c', 'for i in 1 2 3 4 5 6 7 8 9 10; do printf x; sleep 0.1; done'], ENV, {
      output,
      watch: { what: 'The dump', stallMs: 400 },
    });
    expect(Buffer.concat(chunks).toString()).toBe('xxxxxxxxxx');
    const endless = new PassThrough();
    endless.resume();
    await expect(
      runClient('/bin/sh', ['-c', 'while :; do printf x; sleep 0.05; done'], ENV, {
        output: endless,
        watch: { what: 'The dump', stallMs: 400, budgetMs: 600 },
      }),
    ).rejects.toThrow('The dump took longer than 0.6 s and the transfer was stopped');
  });

  it('counts input as progress too: a load fed steadily is not stopped', async () => {
    async function* slowly() {
      for (let i = 0; i < 6; i += 1) {
        yield Buffer.from(`line ${i}\n`);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
    const output = new PassThrough();
    const chunks: Buffer[] = [];
    output.on('data', (chunk: Buffer) => chunks.push(chunk));
    await runClient('/usr/bin/wc', ['-l'], ENV, {
      input: Readable.from(slowly()),
      output,
      watch: { what: 'Loading', stallMs: 400 },
    });
    expect(Buffer.concat(chunks).toString().trim()).toBe('6');
  });
});
