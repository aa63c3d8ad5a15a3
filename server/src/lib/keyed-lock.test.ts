import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createKeyedLock } from './keyed-lock.ts';

describe('keyed lock', () => {
  it('runs the tasks of one key one at a time, in order, and other keys alongside', async () => {
    const lock = createKeyedLock();
    const events: string[] = [];
    const task = (name: string, ms: number) => async () => {
      events.push(`start ${name}`);
      await sleep(ms);
      events.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      lock('a', task('a1', 30)),
      lock('a', task('a2', 1)),
      lock('b', task('b1', 5)),
    ]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(events.indexOf('end a1')).toBeLessThan(events.indexOf('start a2'));
    expect(events.indexOf('start b1')).toBeLessThan(events.indexOf('end a1'));
  });

  it('goes on with the next task of a key after one failed', async () => {
    const lock = createKeyedLock();
    const failed = lock('a', async () => {
      throw new Error('boom');
    });
    const next = lock('a', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });
});
