import { describe, expect, it } from 'vitest';
import { startIntervalTask } from './interval-task.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('startIntervalTask', () => {
  it('runs at once and then on every tick, never two runs at a time, and logs failures', async () => {
    let runs = 0;
    let running = 0;
    let overlapped = false;
    const lines: string[] = [];
    const task = startIntervalTask(
      'test task',
      10,
      async () => {
        runs += 1;
        running += 1;
        overlapped ||= running > 1;
        await sleep(25);
        running -= 1;
        if (runs === 2) throw new Error('boom');
      },
      (line) => lines.push(line),
    );
    expect(runs).toBe(1);
    await sleep(200);
    await task.stop();
    const after = runs;
    await sleep(40);
    expect(runs).toBe(after);
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(overlapped).toBe(false);
    expect(running).toBe(0);
    expect(lines).toContain('test task failed: boom');
  });
});
