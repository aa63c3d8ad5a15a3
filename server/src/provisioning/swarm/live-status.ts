import { connect } from 'node:net';
import type { InstanceStatus, LiveStatusCapability } from '../driver.ts';
import type { SwarmFrontDoors } from './front-door.ts';
import { LOST_LABEL, regionStatuses } from './instance-status.ts';
import { formatMemory, type Region } from './region.ts';
import { instanceNames, LABEL, type ServiceInfo } from './services.ts';
import { listNodes } from './swarm-api.ts';
import type { SwarmContext } from './swarm-context.ts';

/**
 * Live states of swarm instances: while someone listens, every region is read every `intervalMs`
 * (services, tasks, nodes: three calls to its manager) and each instance whose state changed is reported;
 * each node's own engine is asked for the out-of-memory kills in its containers since the last round
 * (Docker's `oom` event), reported as a notice on the instance's current state.
 *
 * States follow what answers: a database on a server the manager lost sight of that still accepts
 * connections is `unreachable` (it serves; Berth cannot manage it), not waiting; a site or n8n is not
 * `running` until its front door answers for it. A node down longer than `nodeLostAfterMs` (60 s by
 * default) is lost: it gets the `berth.lost` label (it is fenced: nothing of Berth's runs there again
 * until Berth cleared it, node-agent.ts) and its instances say `lost`, which the platform answers by
 * relocating them and restoring their latest backup.
 */
const UNREACHABLE_MESSAGE =
  'Its server cannot be reached by the platform right now; it still answers its customers';

export function liveStatus(ctx: SwarmContext, doors: SwarmFrontDoors, intervalMs = 2000) {
  const { regions, log } = ctx;
  const lostAfterMs = ctx.options.nodeLostAfterMs ?? 60_000;
  /** When each node was first seen down (cleared when it is up again). */
  const downSince = new Map<string, number>();
  /** When each lost instance was last said to be lost. */
  const lostSaid = new Map<string, number>();
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

  /** Marks nodes down past the grace period lost (a label on the node, kept until Berth clears it). */
  async function markLost(region: Region): Promise<void> {
    for (const node of await listNodes(region.manager)) {
      if (node.Spec.Labels?.region !== region.id) continue;
      if (node.Status.State === 'ready') {
        downSince.delete(node.ID);
        continue;
      }
      const since = downSince.get(node.ID) ?? Date.now();
      downSince.set(node.ID, since);
      if (node.Spec.Labels?.[LOST_LABEL] || Date.now() - since < lostAfterMs) continue;
      await region.manager.getNode(node.ID).update({
        version: node.Version.Index,
        ...node.Spec,
        // Drained too: swarm itself places nothing there when it returns.
        Availability: 'drain',
        Labels: { ...(node.Spec.Labels ?? {}), [LOST_LABEL]: new Date().toISOString() },
      });
      log(
        `node ${node.Description.Hostname} of ${region.id} is lost (down since ${new Date(since).toISOString()})`,
      );
    }
  }

  /** Whether a TCP port accepts a connection within 2 s. */
  const answers = (host: string, port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ host, port, timeout: 2000 });
      const done = (open: boolean) => {
        socket.destroy();
        resolve(open);
      };
      socket.once('connect', () => done(true));
      socket.once('timeout', () => done(false));
      socket.once('error', () => done(false));
    });

  /** What answers decides: a database still serving on a lost-sight server; a site its front door serves. */
  async function checked(
    region: Region,
    status: InstanceStatus,
    services: ServiceInfo[],
  ): Promise<InstanceStatus> {
    const service = services.find((s) => s.Spec.Name === instanceNames(status.id).service);
    const labels = service?.Spec.Labels ?? {};
    if (status.state === 'node-down' && labels[LABEL.port]) {
      const node = await region.nodeById(labels[LABEL.node] ?? '');
      if (node && (await answers(region.publicAddress(node), Number(labels[LABEL.port])))) {
        return { ...status, state: 'unreachable', message: UNREACHABLE_MESSAGE };
      }
    }
    const slug = labels[LABEL.slug];
    // Asked when it becomes running only (a running site is not asked every round).
    const wasRunning = last.get(status.id)?.startsWith('running\0');
    if (
      status.state === 'running' &&
      !wasRunning &&
      (status.type === 'wordpress' || status.type === 'n8n') &&
      slug
    ) {
      const host = new URL(doors.urls(region.id, slug, null, status.type).temporaryUrl).host;
      const answer = await doors.request(region.id, host, 'GET', '/').catch(() => ({ status: 0 }));
      if (answer.status === 0 || answer.status >= 500) return { ...status, state: 'starting' };
    }
    return status;
  }

  async function round(): Promise<void> {
    const until = Math.floor(Date.now() / 1000);
    for (const region of regions.values()) {
      try {
        await markLost(region);
        const services = (await region.manager.listServices({
          filters: { label: [LABEL.instance] },
        })) as ServiceInfo[];
        const statuses = await Promise.all(
          (await regionStatuses(region)).map((status) => checked(region, status, services)),
        );
        const current = new Map(statuses.map((s) => [s.id, s]));
        for (const status of statuses) {
          const key = `${status.state}\0${status.message ?? ''}`;
          // A lost instance is said again every minute until the platform took it (a recovery may have
          // waited for an operation of the instance to end).
          const again = status.state === 'lost' && Date.now() - (lostSaid.get(status.id) ?? 0) > 60_000;
          if (last.get(status.id) === key && !again) continue;
          last.set(status.id, key);
          if (status.state === 'lost') lostSaid.set(status.id, Date.now());
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

  const capability: Omit<LiveStatusCapability, 'relocate' | 'move'> = {
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
    /** Forgets what it knew of an instance (relocated: its next state is news again). */
    forget(id: string) {
      last.delete(id);
    },
    stop() {
      listeners.clear();
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
