import { setTimeout as sleep } from 'node:timers/promises';
import { SERVICE_UIDS } from './image-recipes.ts';
import { execIn, type RunningContainer } from './node-exec.ts';
import type { Region } from './region.ts';
import { LABEL } from './services.ts';
import { unlessMissing } from './swarm-api.ts';
import type { SwarmContext } from './swarm-context.ts';

// The front door's container on a region's manager node (front-door.ts): created as `caddy` with no
// capability, and loaded with a configuration through Caddy's admin API inside it.

export const CONTAINER = 'berth-front-door';
const NETWORK = 'berth-front';
const VOLUME = 'berth-front-door';
const CONFIG_FILE = '/data/berth.json';
export const ADMIN = 'localhost:2019';
/** A one-file tar archive (ustar), for Docker's archive API. */
function singleFileTar(name: string, content: Buffer, uid: number, mode = 0o600): Buffer {
  const header = Buffer.alloc(512);
  const write = (text: string, offset: number, length: number) => header.write(text, offset, length, 'ascii');
  const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, '0')}\0`;
  write(name, 0, 100);
  write(octal(mode, 8), 100, 8);
  write(octal(uid, 8), 108, 8);
  write(octal(uid, 8), 116, 8);
  write(octal(content.length, 12), 124, 12);
  write(octal(Math.floor(Date.now() / 1000), 12), 136, 12);
  write('        ', 148, 8);
  write('0', 156, 1);
  write('ustar\0', 257, 6);
  write('00', 263, 2);
  let sum = 0;
  for (const byte of header) sum += byte;
  write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([header, content, padding, Buffer.alloc(1024)]);
}

/** The region's front door container, on its manager node. */
export async function frontDoorContainer(r: Region): Promise<RunningContainer> {
  const info = (await r.manager.info()) as { Swarm?: { NodeID?: string } };
  return {
    engine: r.manager,
    container: r.manager.getContainer(CONTAINER),
    nodeId: info.Swarm?.NodeID ?? '',
  };
}

/** Starts the front door's container, or adopts the running one when it has the current image. */
export async function ensureFrontDoorContainer(ctx: SwarmContext, r: Region): Promise<void> {
  const { httpPort, httpsPort } = ctx.options;
  const image = ctx.image('caddy');
  const existing = (await unlessMissing(() => r.manager.getContainer(CONTAINER).inspect())) as
    | { Config: { Image: string }; State: { Running: boolean } }
    | undefined;
  if (existing && existing.Config.Image === image) {
    if (!existing.State.Running) await r.manager.getContainer(CONTAINER).start();
    return;
  }
  if (existing) await r.manager.getContainer(CONTAINER).remove({ force: true });
  if (!(await unlessMissing(() => r.manager.getNetwork(NETWORK).inspect()))) {
    await r.manager.createNetwork({
      Name: NETWORK,
      Driver: 'bridge',
      Labels: { [LABEL.role]: 'front-door' },
    });
  }
  const created = await r.manager.createContainer({
    name: CONTAINER,
    Image: image,
    Cmd: ['/usr/local/bin/berth-caddy'],
    User: 'caddy',
    Labels: { [LABEL.role]: 'front-door' },
    ExposedPorts: { [`${httpPort}/tcp`]: {}, [`${httpsPort}/tcp`]: {} },
    HostConfig: {
      NetworkMode: NETWORK,
      PortBindings: {
        [`${httpPort}/tcp`]: [{ HostPort: String(httpPort) }],
        [`${httpsPort}/tcp`]: [{ HostPort: String(httpsPort) }],
      },
      Mounts: [{ Type: 'volume', Source: VOLUME, Target: '/data' }],
      RestartPolicy: { Name: 'always' },
      // Caddy binds 80/443 as its own user (no root, no capability).
      Sysctls: { 'net.ipv4.ip_unprivileged_port_start': '0' },
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': 'rw,noexec,nosuid,size=16m' },
    },
  });
  await created.start();
}

/**
 * Writes `config` into the container's volume and has Caddy reload it (graceful), retrying while a new
 * container's Caddy is still starting.
 */
export async function loadCaddyConfig(target: RunningContainer, config: unknown): Promise<void> {
  const archive = singleFileTar('berth.json', Buffer.from(JSON.stringify(config)), SERVICE_UIDS.caddy);
  await target.container.putArchive(archive, { path: '/data' });
  // Caddy may still be starting (a new container): its admin API answers within a second or two.
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await execIn(target, ['caddy', 'reload', '--config', CONFIG_FILE, '--address', ADMIN], {
        user: 'caddy',
        env: ['XDG_DATA_HOME=/data/data', 'XDG_CONFIG_HOME=/data/config'],
      });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(250);
    }
  }
}
