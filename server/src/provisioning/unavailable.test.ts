import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { n8nRuntimeDir, runtimeInstallUnderWay } from './apps/n8n/n8n-runtime.ts';
import { unavailable } from './instance-types.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('an unavailable instance type, in the customer’s words and the operator’s', () => {
  it('says what customers can expect, and keeps the operator’s detail apart', () => {
    const detail = 'n8n 2.8.4 is not installed on this host (/var/cache/berth/runtimes/n8n-2.8.4)';
    expect(unavailable.settingUp('n8n', detail, 5)).toEqual({
      available: false,
      reason: 'n8n is being set up on this server; it will be ready in about 5 minutes',
      detail,
    });
    expect(unavailable.settingUp('n8n', detail, 1).reason).toBe(
      'n8n is being set up on this server; it will be ready in about 1 minute',
    );
    expect(unavailable.settingUp('n8n', detail).reason).toBe(
      'n8n is being set up on this server; it will be ready in a few minutes',
    );
    expect(unavailable.notOffered('mongodb', 'MongoDB needs MONGODB_ADMIN_URL').reason).toBe(
      'MongoDB is not offered on this server',
    );
    expect(unavailable.down('wordpress', 'Not running: caddy').reason).toBe(
      'WordPress is temporarily unavailable on this server; please try again later',
    );
  });

  it('estimates the minutes left of an n8n runtime install under way on this host', async () => {
    const runtimes = await mkdtemp(path.join(tmpdir(), 'berth-runtimes-'));
    dirs.push(runtimes);
    expect(runtimeInstallUnderWay(runtimes)).toBeUndefined();

    // A live process's install (ours): began when its partial folder was made.
    const partial = `${n8nRuntimeDir(runtimes)}.partial-${process.pid}-1`;
    await mkdir(partial);
    const began = runtimeInstallUnderWay(runtimes)?.began;
    if (!began) throw new Error('the install under way was not seen');
    expect(Math.abs(began.getTime() - Date.now())).toBeLessThan(5_000);
    const at = (minutes: number) => runtimeInstallUnderWay(runtimes, began.getTime() + minutes * 60_000);
    expect(at(0)?.minutesLeft).toBe(7);
    expect(at(2.5)?.minutesLeft).toBe(5);
    // Longer than usual: still under way, without a number.
    expect(at(9)).toEqual({ began });

    // The folder of a process that is gone is no install.
    await rm(partial, { recursive: true });
    await mkdir(`${n8nRuntimeDir(runtimes)}.partial-999999999-1`);
    expect(runtimeInstallUnderWay(runtimes)).toBeUndefined();
  });
});
