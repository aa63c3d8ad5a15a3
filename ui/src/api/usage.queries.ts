import type { Schemas } from '@berth/openapi';
import { keepPreviousData, type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { ApiRequestError, unwrap } from './api-error.ts';
import { adminKeys, instanceKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

export type UsageReport = Schemas['UsageReport'];
export type UsagePoint = Schemas['UsagePoint'];
export type UsageRange = UsageReport['range'];
export type HostCapacity = Schemas['HostCapacity'];

export const USAGE_RANGES: readonly UsageRange[] = ['1h', '24h', '7d'];

/** A new point of one instance, as the live stream's `event: usage` carries it. */
export interface UsageStreamEvent {
  instanceId: string;
  point: UsagePoint;
}

/**
 * GET /api/instances/{id}/usage for a range. The last hour also grows by the stream's points (see
 * applyUsageEvent); every range reloads now and then in case the stream was away. A server that
 * measures nothing answers `measured: false`; an instance that is gone answers 404 (not retried).
 */
export function useInstanceUsageQuery(id: string, range: UsageRange, enabled = true) {
  const client = useApiClient();
  return useQuery({
    queryKey: instanceKeys.usageRange(id, range),
    queryFn: () =>
      unwrap(client.GET('/api/instances/{id}/usage', { params: { path: { id }, query: { range } } })),
    enabled,
    placeholderData: keepPreviousData,
    refetchInterval: range === '1h' ? 60_000 : 300_000,
    retry: (failures, error) => !(error instanceof ApiRequestError && error.status < 500) && failures < 2,
  });
}

/** GET /api/admin/capacity: the host's memory, CPU and disk, and the ten busiest instances. */
export function useHostCapacityQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: adminKeys.capacity(),
    queryFn: () => unwrap(client.GET('/api/admin/capacity')),
    refetchInterval: 60_000,
    retry: (failures, error) => !(error instanceof ApiRequestError && error.status < 500) && failures < 2,
  });
}

const HOUR_MS = 3_600_000;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const peakOf = (values: (number | null)[]) => {
  const known = values.filter((value): value is number => value !== null);
  return known.length > 0 ? Math.max(...known) : null;
};

/**
 * The last hour's report with one more point: points older than an hour drop off, and the current
 * values, peaks and request totals are counted again from the points (as the server does).
 */
function withLivePoint(report: UsageReport, point: UsagePoint): UsageReport {
  const since = Date.parse(point.at) - HOUR_MS;
  const points = [...report.points.filter((p) => Date.parse(p.at) > since && p.at < point.at), point];
  const lastOf = (pick: (p: UsagePoint) => number | null) =>
    points
      .map(pick)
      .filter((value): value is number => value !== null)
      .at(-1) ?? null;
  const web = points.flatMap((p) => (p.requests ? [p.requests] : []));
  const requests =
    web.length === 0
      ? null
      : {
          status2xx: sum(web.map((r) => r.status2xx)),
          status3xx: sum(web.map((r) => r.status3xx)),
          status4xx: sum(web.map((r) => r.status4xx)),
          status5xx: sum(web.map((r) => r.status5xx)),
          bytesSent: sum(web.map((r) => r.bytesSent)),
          total: sum(web.map((r) => r.status2xx + r.status3xx + r.status4xx + r.status5xx)),
        };
  const lastOutOfMemoryAt = point.oomKills > 0 ? point.at : report.lastOutOfMemoryAt;
  return {
    ...report,
    lastOutOfMemoryAt,
    points,
    summary: {
      cpu: { current: lastOf((p) => p.cpu), peak: peakOf(points.map((p) => p.cpu)) },
      memory: {
        current: lastOf((p) => p.memoryBytes),
        peak: peakOf(points.map((p) => p.memoryPeakBytes ?? p.memoryBytes)),
        limit: lastOf((p) => p.memoryLimitBytes) ?? report.summary.memory.limit,
      },
      disk: {
        used: lastOf((p) => p.diskUsedBytes) ?? report.summary.disk.used,
        limit: lastOf((p) => p.diskLimitBytes) ?? report.summary.disk.limit,
      },
      requests,
    },
  };
}

/**
 * Applies an `event: usage` of the live stream: the instance's last-hour report (if a page holds it)
 * gets the point at once. A point of an out-of-memory kill also reloads the other ranges.
 */
function applyUsageEvent(queryClient: QueryClient, { instanceId, point }: UsageStreamEvent): void {
  queryClient.setQueryData<UsageReport>(instanceKeys.usageRange(instanceId, '1h'), (report) =>
    report?.measured ? withLivePoint(report, point) : report,
  );
  if (point.oomKills > 0) void queryClient.invalidateQueries({ queryKey: instanceKeys.usage(instanceId) });
}

/** The live stream's usage handler (see applyUsageEvent). */
export function useUsageEventHandler() {
  const queryClient = useQueryClient();
  return useCallback((event: UsageStreamEvent) => applyUsageEvent(queryClient, event), [queryClient]);
}
