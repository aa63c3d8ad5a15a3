import type { UsageRange, UsageReport } from '../../api/usage.queries.ts';

const ONE = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
const TWO = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const COUNT = new Intl.NumberFormat('en');
const MIB = 1_048_576;
const GIB = 1_073_741_824;

/** Memory and disk as the usage screens show them: 512 MB, 1.5 GB. */
export function formatBytes(bytes: number): string {
  if (bytes >= GIB) return `${ONE.format(bytes / GIB)} GB`;
  if (bytes >= MIB) return `${ONE.format(bytes / MIB)} MB`;
  return `${ONE.format(bytes / 1024)} KB`;
}

/** vCPUs used: 0.25 vCPU. */
export const formatCpu = (cpus: number) => `${TWO.format(cpus)} vCPU`;

export const formatCount = (count: number) => COUNT.format(count);

export const RANGE_WORDS: Record<UsageRange, string> = {
  '1h': 'the last hour',
  '24h': 'the last 24 hours',
  '7d': 'the last 7 days',
};

const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const DAY = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });

/** "Restarted after running out of memory at 14:02" (with the day when it was not today). */
export function outOfMemoryLine(at: Date, now: Date): string {
  const sameDay = at.toDateString() === now.toDateString();
  return `Restarted after running out of memory at ${TIME.format(at)}${sameDay ? '' : ` on ${DAY.format(at)}`}`;
}

/**
 * The charts in words, one sentence per chart: the current value and the peak over the range (the
 * text alternative screen readers and the e2e test read).
 */
export function usageInWords(report: UsageReport): {
  cpu: string;
  memory: string;
  disk: string;
  requests: string | null;
} {
  const { cpu, memory, disk, requests } = report.summary;
  const range = RANGE_WORDS[report.range];
  const of = (limit: string | null) => (limit ? ` of ${limit}` : '');
  const cpuLimit = report.cpuLimit === null ? null : formatCpu(report.cpuLimit);
  // Points but no CPU or memory in them: a database on a shared server, measured by its disk only.
  const unmeasured = (what: string) =>
    report.points.length > 0
      ? `${what}: not measured for this instance alone (it shares its server).`
      : `${what}: not measured yet.`;
  return {
    cpu:
      cpu.current === null
        ? unmeasured('CPU')
        : `CPU: ${formatCpu(cpu.current)} now${of(cpuLimit)}; peak ${formatCpu(cpu.peak ?? cpu.current)} in ${range}.`,
    memory:
      memory.current === null
        ? unmeasured('Memory')
        : `Memory: ${formatBytes(memory.current)} now${of(memory.limit === null ? null : formatBytes(memory.limit))}; peak ${formatBytes(memory.peak ?? memory.current)} in ${range}.`,
    disk:
      disk.used === null
        ? 'Disk: not measured.'
        : `Disk: ${formatBytes(disk.used)} used${of(disk.limit === null ? null : formatBytes(disk.limit))}.`,
    requests:
      requests === null
        ? null
        : `Requests: ${formatCount(requests.total)} in ${range}: ${formatCount(requests.status2xx)} successful, ${formatCount(requests.status3xx)} redirects, ${formatCount(requests.status4xx)} client errors, ${formatCount(requests.status5xx)} server errors.`,
  };
}
