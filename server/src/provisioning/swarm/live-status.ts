import type { InstanceStatus, LiveStatusCapability } from '../driver.ts';
import { regionStatuses } from './instance-status.ts';
import { formatMemory, type Region } from './region.ts';
import { LABEL } from './services.ts';
import { listNodes } from './swarm-api.ts';

/**
 * Live states of swarm instances: while someone listens, every region is read every `intervalMs`
 * (services, tasks, nodes: three calls to its manager) and each instance whose state changed is reported;
 * each node's own engine is asked for the out-of-memory kills in its containers since the last round
 * (Docker's `oom` event), reported as a notice on the instance's current state.
 */
export function liveStatus(regions: Map<string, Region>, log: (line: string) => void, intervalMs = 2000) {
  const listeners = new Set<(status: InstanceStatus) => void>();
  const last = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let since = Math.floor(Date.now() / 1000);

  async function oomKills(region: Region, until: number): Promise<{ id: string; memory: number }[]> {
    const kills: { id: string; memory: number }[] = [];
    for (const node of await listNodes(region.manager)) {
      if (node.Spec.Labels?.region !== region.id || node.Status.State !== 'ready') continue;
      const engine = region.nodeEngine(node);
      const events = (await engine
        .getEvents({
          since,
          until,
          filters: { type: ['container'], event: ['oom'], label: [LABEL.instance] },
        })
        .then(
          (stream) =>
            new Promise<string>((resolve, reject) => {
              let text = '';
              stream.on('data', (chunk: Buffer) => {
                text += chunk.toString();
              });
              stream.on('end', () => resolve(text));
              stream.on('error', reject);
            }),
        )
        .catch(() => '')) as string;
      for (const line of events.split('\n').filter(Boolean)) {
        const event = JSON.parse(line) as { Actor?: { ID?: string; Attributes?: Record<string, string> } };
        const id = event.Actor?.Attributes?.[LABEL.instance];
        if (!id || !event.Actor?.ID) continue;
        const inspected = (await engine
          .getContainer(event.Actor.ID)
          .inspect()
          .catch(() => undefined)) as { HostConfig?: { Memory?: number } } | undefined;
        kills.push({ id, memory: inspected?.HostConfig?.Memory ?? 0 });
      }
    }
    return kills;
  }

  async function round(): Promise<void> {
    const until = Math.floor(Date.now() / 1000);
    for (const region of regions.values()) {
      try {
        const statuses = await regionStatuses(region);
        const current = new Map(statuses.map((s) => [s.id, s]));
        for (const status of statuses) {
          const key = `${status.state}\0${status.message ?? ''}`;
          if (last.get(status.id) === key) continue;
          last.set(status.id, key);
          for (const listener of listeners) listener(status);
        }
        if (until > since) {
          for (const kill of await oomKills(region, until)) {
            const status = current.get(kill.id);
            if (!status) continue;
            const notice: InstanceStatus = {
              ...status,
              message: `A process of this instance was stopped for using more than ${kill.memory ? `its ${formatMemory(kill.memory)} of memory` : 'its memory'}`,
            };
            for (const listener of listeners) listener(notice);
          }
        }
      } catch (error) {
        log(`live status of ${region.id} not read: ${(error as Error).message}`);
      }
    }
    if (until > since) since = until;
  }

  function schedule() {
    timer = setTimeout(async () => {
      await round();
      if (listeners.size > 0) schedule();
      else timer = undefined;
    }, intervalMs);
  }

  const capability: LiveStatusCapability = {
    async status(id) {
      for (const region of regions.values()) {
        const found = (await regionStatuses(region)).find((s) => s.id === id);
        if (found) return found;
      }
      return undefined;
    },
    watch(listener) {
      listeners.add(listener);
      if (!timer) {
        since = Math.floor(Date.now() / 1000);
        schedule();
      }
      return () => {
        listeners.delete(listener);
      };
    },
  };
  return {
    capability,
    stop() {
      listeners.clear();
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
