import { useEffect } from 'react';
import { FILTER_PAGE_SIZE, type InstanceList, useInstancesQuery } from '../../api/instances.queries.ts';
import type { InstanceCounts } from '../../platform/platform.ts';

/**
 * Running and total instances of a list answer. `total` is the server's count; `running` counts the
 * instances of the answer, which holds all of them up to FILTER_PAGE_SIZE (1000).
 */
export function countInstances(list: Pick<InstanceList, 'instances' | 'total'>): InstanceCounts {
  const running = list.instances.filter((instance) => instance.status === 'running').length;
  return { running, total: Math.max(list.total, running) };
}

/**
 * Keeps the host's tray line ("2 of 3 instances running") up to date while a user is signed in: the list
 * query is the one the instance screens use, refreshed by the live stream's instance events. Rendered
 * only where the host has a tray (desktop); reports null when it goes away (sign-out).
 */
export function InstanceCountsReporter({ report }: { report(counts: InstanceCounts | null): void }) {
  const list = useInstancesQuery({ page: 1, limit: FILTER_PAGE_SIZE, search: '' });
  const running = list.data ? countInstances(list.data).running : undefined;
  const total = list.data ? countInstances(list.data).total : undefined;

  useEffect(() => {
    if (running !== undefined && total !== undefined) report({ running, total });
  }, [report, running, total]);
  useEffect(() => () => report(null), [report]);
  return null;
}
