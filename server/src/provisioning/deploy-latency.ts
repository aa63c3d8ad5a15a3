import { randomUUID } from 'node:crypto';
import type { ProvisioningDriver } from './driver.ts';
import type { DatabaseType } from './instance-types.ts';
import { checkTenantLogin } from './tenant-login.ts';

export interface LatencySummary {
  type: DatabaseType;
  count: number;
  /** Pause before each deploy (ms); absent: one right after the other. */
  gapMs?: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

/** Nearest-rank percentile of ascending `sorted` samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * Deploy-to-ready latency: for `count` fresh instances one after another, the time from the
 * engine's deploy call to the tenant's first successful login. The tenants are deleted afterwards.
 * `gapMs` pauses before each deploy, as between customers (the local driver then has its warm spare
 * disk ready; one right after the other, each waits for the spare the previous one started).
 * Used by the provisioning tests and by `npm run bench`.
 */
export async function measureDeployLatency(
  driver: ProvisioningDriver,
  type: DatabaseType,
  count = 20,
  { gapMs }: { gapMs?: number } = {},
): Promise<LatencySummary> {
  const ids: string[] = [];
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const id = randomUUID();
      ids.push(id);
      if (gapMs) await new Promise((resolve) => setTimeout(resolve, gapMs));
      const started = performance.now();
      const { database } = await driver.engine(type).deploy({ id });
      if (!database) throw new Error(`The ${type} engine answered no credentials`);
      await checkTenantLogin(type, database);
      samples.push(performance.now() - started);
    }
  } finally {
    for (const id of ids) await driver.engine(type).delete(id);
  }
  samples.sort((a, b) => a - b);
  return {
    type,
    count,
    ...(gapMs ? { gapMs } : {}),
    p50Ms: percentile(samples, 50),
    p95Ms: percentile(samples, 95),
    maxMs: samples.at(-1) ?? Number.NaN,
  };
}

export function formatLatency(summary: LatencySummary): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const gap = summary.gapMs ? `, ${summary.gapMs / 1000} s apart` : '';
  return `${summary.type}: deploy-to-ready p50 ${ms(summary.p50Ms)}, p95 ${ms(summary.p95Ms)}, max ${ms(summary.maxMs)} (${summary.count} deploys${gap})`;
}
