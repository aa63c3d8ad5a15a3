import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { buildOnce } from '../../build-once.ts';

/** A build that takes `ms` and leaves `marker` in its folder; complete once `done` is written. */
const slowBuild = (ms: number, marker: string) => async (partial: string) => {
  await mkdir(partial);
  await writeFile(path.join(partial, 'marker'), marker);
  await delay(ms);
  await writeFile(path.join(partial, 'done'), '');
};

describe('buildOnce (host-wide folders made once)', () => {
  it('two builds at once: one complete folder, written by one of them, and no partial folder left', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'berth-build-once-'));
    const target = path.join(root, 'runtime');
    const complete = () => existsSync(path.join(target, 'done'));
    const results = await Promise.all([
      buildOnce(target, complete, slowBuild(50, 'first')),
      // Each build has a folder of its own, in one process as in two.
      buildOnce(target, complete, slowBuild(80, 'second')),
    ]);
    expect(complete()).toBe(true);
    expect(['first', 'second']).toContain(readFileSync(path.join(target, 'marker'), 'utf8'));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(readdirSync(root)).toEqual(['runtime']);
  });

  it("leaves a running process's partial folder alone, removes a dead one's, and replaces an incomplete target", async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'berth-build-once-'));
    const target = path.join(root, 'runtime');
    // pid 1 always runs; 2^22 + 1 is above the kernel's largest pid, so never a live process.
    await mkdir(`${target}.partial-1-1`);
    await mkdir(`${target}.partial-${2 ** 22 + 1}-1`);
    await mkdir(`${target}.partial`);
    await mkdir(target);
    await writeFile(path.join(target, 'half'), '');
    const built = await buildOnce(target, () => existsSync(path.join(target, 'done')), slowBuild(0, 'new'));
    expect(built).toBe(true);
    expect(readdirSync(root).sort()).toEqual(['runtime', 'runtime.partial-1-1']);
    expect(readdirSync(target).sort()).toEqual(['done', 'marker']);
  });

  it('a failed build leaves nothing behind and the next one starts afresh', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'berth-build-once-'));
    const target = path.join(root, 'runtime');
    const complete = () => existsSync(path.join(target, 'done'));
    await expect(
      buildOnce(target, complete, async (partial) => {
        await mkdir(partial);
        throw new Error('npm install exited with 1');
      }),
    ).rejects.toThrow('npm install exited with 1');
    expect(readdirSync(root)).toEqual([]);
    await expect(buildOnce(target, complete, slowBuild(0, 'retry'))).resolves.toBe(true);
    await expect(buildOnce(target, complete, slowBuild(0, 'again'))).resolves.toBe(false);
    expect(readFileSync(path.join(target, 'marker'), 'utf8')).toBe('retry');
  });
});
