import Docker from 'dockerode';
import { DEFAULT_RUNTIMES_DIR, installedN8nRuntime, N8N_VERSION } from '../apps/n8n/n8n-runtime.ts';
import { buildImages, loadImages } from './image-builder.ts';
import { type LocalSwarm, type LocalSwarmOptions, startLocalSwarm } from './local-swarm.ts';
import { N8N_RUNTIME_LABEL } from './services.ts';

/**
 * A local swarm ready for Berth (`npm run swarm:local` and the tests): the namespaces and dockerds of
 * local-swarm.ts, Berth's images built once per host and imported into every node, and the n8n runtime
 * label on every node when this host has the runtime (the nodes share the host's files).
 */
export async function startBerthSwarm(
  options: LocalSwarmOptions & { imageCache?: string; runtimesDir?: string },
): Promise<LocalSwarm> {
  const log = options.log ?? (() => {});
  const runtimesDir = options.runtimesDir ?? DEFAULT_RUNTIMES_DIR;
  const hasN8n = installedN8nRuntime(runtimesDir) !== undefined;
  const n8n: Record<string, string> = hasN8n ? { [N8N_RUNTIME_LABEL]: N8N_VERSION } : {};
  if (!hasN8n) log(`n8n ${N8N_VERSION} is not installed here: n8n instances cannot be placed`);
  // Built (once per host) before any node asks: the nodes then only import.
  await buildImages({ cacheDir: options.imageCache, log });
  const swarm = await startLocalSwarm({ ...options, extraLabels: { ...options.extraLabels, ...n8n } });
  const started = Date.now();
  await Promise.all(
    swarm.nodes.map((node) =>
      loadImages(new Docker({ socketPath: node.socket }), { cacheDir: options.imageCache, log }),
    ),
  );
  log(`images in every node in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return swarm;
}
