import { regionLabel } from '@berth/openapi/rules';
import type { InstanceStatus } from '../driver.ts';
import type { InstanceType } from '../instance-types.ts';
import { formatMemory, type Region } from './region.ts';
import { LABEL, type ServiceInfo } from './services.ts';
import { currentTask, listNodes, listTasks, type SwarmNode, type SwarmTask } from './swarm-api.ts';

/**
 * An instance's live state, read from the swarm: its services (replicas), their tasks (state, error,
 * exit code) and the nodes those run on. A task on a node that stopped answering is the instance
 * "waiting for its server to come back"; repeated failures are an error with their reason, in the
 * customer's words (an exit by the memory limit says so).
 */

export const NODE_DOWN_MESSAGE = 'Waiting for its server to come back';
const NODE_LOST_MESSAGE = 'Its server was lost';
/** The label a lost node carries (the time it was found lost) until Berth cleared it on its return. */
export const LOST_LABEL = 'berth.lost';

/** Failed tasks in this window that make a restart loop an error. */
const LOOP_WINDOW_MS = 120_000;
const LOOP_FAILURES = 3;

function memoryOf(service: ServiceInfo): number {
  const template = service.Spec.TaskTemplate;
  return template?.Resources?.Limits?.MemoryBytes ?? 0;
}

/** What a failed task's error means to the customer. */
function failureReason(task: SwarmTask, service: ServiceInfo): string {
  const err = task.Status.Err ?? task.Status.Message ?? 'it stopped';
  const exit = task.Status.ContainerStatus?.ExitCode;
  if (exit === 137 || /exit \(137\)/.test(err)) {
    const memory = memoryOf(service);
    return memory
      ? `It was stopped for using more than its ${formatMemory(memory)} of memory`
      : 'It was stopped by the system (killed)';
  }
  return `It stopped: ${err}`;
}

function serviceStatus(
  service: ServiceInfo,
  tasks: SwarmTask[],
  nodes: Map<string, SwarmNode>,
  region: Region,
): Omit<InstanceStatus, 'id' | 'type'> {
  if (service.Spec.Mode?.Replicated?.Replicas === 0) return { state: 'stopped' };
  const mine = tasks.filter((task) => task.ServiceID === service.ID);
  const task = currentTask(mine);
  const node = task?.NodeID ? nodes.get(task.NodeID) : undefined;
  const pinned = service.Spec.Labels?.[LABEL.node];
  const home = pinned ? nodes.get(pinned) : node;
  // A lost server does not come back for its instances, even if it answers again (it is fenced).
  if (home?.Spec.Labels?.[LOST_LABEL]) return { state: 'lost', message: NODE_LOST_MESSAGE };
  if (home && home.Status.State !== 'ready') return { state: 'node-down', message: NODE_DOWN_MESSAGE };
  if (task?.Status.State === 'running') return { state: 'running' };
  const recent = mine.filter(
    (t) =>
      ['failed', 'rejected'].includes(t.Status.State) &&
      Date.now() - Date.parse(t.UpdatedAt) < LOOP_WINDOW_MS,
  );
  if (recent.length >= LOOP_FAILURES) {
    const last = recent.sort((a, b) => Date.parse(b.UpdatedAt) - Date.parse(a.UpdatedAt))[0];
    return { state: 'error', message: last ? failureReason(last, service) : 'It keeps stopping' };
  }
  if (task?.Status.State === 'pending' && /no suitable node/.test(task.Status.Err ?? '')) {
    return { state: 'error', message: `No server of ${regionLabel(region.id)} can take it now` };
  }
  return { state: 'starting' };
}

const RANK: Record<InstanceStatus['state'], number> = {
  running: 0,
  stopped: 1,
  starting: 2,
  unreachable: 3,
  'node-down': 4,
  error: 5,
  lost: 6,
};

/** The state of every Berth instance in a region (one call each for services, tasks and nodes). */
export async function regionStatuses(region: Region): Promise<InstanceStatus[]> {
  const [services, tasks, nodes] = await Promise.all([
    region.manager.listServices({ filters: { label: [LABEL.instance] } }) as Promise<ServiceInfo[]>,
    listTasks(region.manager, { label: [LABEL.instance] }),
    listNodes(region.manager),
  ]);
  const byId = new Map(nodes.map((node) => [node.ID, node]));
  const statuses = new Map<string, InstanceStatus>();
  for (const service of services) {
    const id = service.Spec.Labels?.[LABEL.instance];
    const type = service.Spec.Labels?.[LABEL.type] as InstanceType | undefined;
    if (!id || !type) continue;
    const status = { id, type, ...serviceStatus(service, tasks, byId, region) };
    const before = statuses.get(id);
    // An instance of several services (a site and its database) is as well as its worst part.
    if (!before || RANK[status.state] > RANK[before.state]) statuses.set(id, status);
  }
  return [...statuses.values()];
}
