import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import type { SwarmTls } from './swarm-options.ts';

/**
 * The few shapes of the Docker Engine API the driver reads (dockerode types tasks and nodes as `any`),
 * and a client per endpoint: `unix:///path` or `tcp://host:port` (HTTPS with client certificates).
 */

export interface SwarmNode {
  ID: string;
  Version: { Index: number };
  Spec: { Role: 'manager' | 'worker'; Availability: string; Labels?: Record<string, string> };
  Description: {
    Hostname: string;
    Resources: { NanoCPUs: number; MemoryBytes: number };
  };
  Status: { State: 'unknown' | 'down' | 'ready' | 'disconnected'; Addr: string; Message?: string };
  ManagerStatus?: { Leader?: boolean; Reachability?: string; Addr?: string };
}

export type TaskState =
  | 'new'
  | 'allocated'
  | 'pending'
  | 'assigned'
  | 'accepted'
  | 'preparing'
  | 'ready'
  | 'starting'
  | 'running'
  | 'complete'
  | 'shutdown'
  | 'failed'
  | 'rejected'
  | 'remove'
  | 'orphaned';

export interface SwarmTask {
  ID: string;
  ServiceID: string;
  NodeID?: string;
  Slot?: number;
  DesiredState: TaskState;
  CreatedAt: string;
  UpdatedAt: string;
  Spec: { Resources?: { Reservations?: { NanoCPUs?: number; MemoryBytes?: number } } };
  Status: {
    Timestamp: string;
    State: TaskState;
    Message?: string;
    Err?: string;
    ContainerStatus?: { ContainerID?: string; ExitCode?: number };
  };
  Labels?: Record<string, string>;
}

export function dockerFor(endpoint: string, tls?: SwarmTls): Docker {
  if (endpoint.startsWith('unix://')) return new Docker({ socketPath: endpoint.slice('unix://'.length) });
  const url = new URL(endpoint);
  if (url.protocol !== 'tcp:') throw new Error(`Unsupported Docker endpoint ${endpoint}`);
  if (!tls) throw new Error(`The Docker endpoint ${endpoint} needs TLS client certificates`);
  return new Docker({
    protocol: 'https',
    host: url.hostname,
    port: Number(url.port || 2376),
    ca: readFileSync(tls.ca),
    cert: readFileSync(tls.cert),
    key: readFileSync(tls.key),
  });
}

export const listNodes = async (docker: Docker) => (await docker.listNodes()) as SwarmNode[];

export const listTasks = async (docker: Docker, filters: Record<string, string[]>) =>
  (await docker.listTasks({ filters })) as SwarmTask[];

/** The newest task meant to run. */
export function currentTask(tasks: SwarmTask[]): SwarmTask | undefined {
  return tasks
    .filter((task) => task.DesiredState === 'running')
    .sort((a, b) => Date.parse(b.CreatedAt) - Date.parse(a.CreatedAt))[0];
}

/** A Docker API error's HTTP status (404 for "no such …"). */
export const statusOf = (error: unknown): number | undefined =>
  (error as { statusCode?: number } | undefined)?.statusCode;

/** Runs `call`, answering undefined on a 404 (what is absent needs no removal). */
export async function unlessMissing<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}
