import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import {
  createSftpServer,
  SFTP_SERVER,
  type SftpAccount,
  type SftpServer,
  type SftpSession,
  verifySecret,
} from '../apps/wordpress/sftp-server.ts';
import type { SftpCredentials } from '../engine.ts';
import { openHelper } from './node-exec.ts';
import type { Region } from './region.ts';
import { type InstanceNames, instanceNames, LABEL, type ServiceInfo } from './services.ts';
import type { SwarmContext } from './swarm-context.ts';

/**
 * SFTP for WordPress sites on a swarm: one gateway in Berth's own process (the local driver's SSH server,
 * apps/wordpress/sftp-server.ts: password logins only, the `sftp` subsystem only, failed logins limited),
 * listening on SFTP_PORT of Berth's host for every region. A login is a site's slug and its SFTP password,
 * checked against the hash on the site's service (`berth.sftp` label; the password itself is nowhere). Each
 * session is OpenSSH's sftp-server in a helper container on the site's node (node-exec.ts `openHelper`),
 * in the site's folder as it is served (WordPress' core read-only from the image): as www-data, only the
 * site's wp-content volume mounted writable (its disk: nothing can be written past its size), no file larger than that disk (`prlimit --fsize`: no sparse monster), no network, no capability,
 * and in a PID namespace of its own. The gateway only passes bytes; it opens no file of the site's.
 *
 * We chose a gateway in Berth over an SSH server per site: no port per site to publish and firewall, no
 * SSH daemon running as root on the nodes, and the same server, limits and tests as the local driver. Its
 * cost: a region's SFTP traffic goes through Berth's host.
 */

export const SFTP_LABEL = 'berth.sftp';
/**
 * Where a session starts: the site as it is served, WordPress' core read-only from the image and its
 * wp-content (the site's volume, the only writable part) mounted in it.
 */
const SITE = '/var/www/wordpress';
const FILES = `${SITE}/wp-content`;

export interface SwarmSftp {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The login of a site (its password is the spec's). */
  credentials(names: InstanceNames, password: string): SftpCredentials;
  /** Ends a site's live sessions (suspended or deleted). */
  disconnect(names: InstanceNames): void;
}

/** A session of the site's files: sftp-server in a helper container beside its volume. */
function helperSession(ctx: SwarmContext, region: Region, nodeId: string, names: InstanceNames): SftpAccount {
  return {
    async session(): Promise<SftpSession> {
      const node = await region.nodeById(nodeId);
      if (!node) throw new Error(`the node of ${names.id} is gone`);
      const maxBytes = ctx.options.disks.wordpress * 1024 * 1024;
      const helper = await openHelper(
        region.nodeEngine(node),
        {
          image: ctx.image('wordpress'),
          user: '33:33',
          mounts: [{ volume: names.volume('content'), target: FILES, readOnly: false }],
          cmd: [
            '/usr/bin/prlimit',
            `--fsize=${maxBytes}`,
            '--',
            SFTP_SERVER,
            '-d',
            SITE,
            '-u',
            '022',
            '-e',
            '-l',
            'ERROR',
          ],
          labels: { [LABEL.instance]: names.id, [LABEL.role]: 'sftp-session' },
          memoryMb: 128,
          cpus: 0.5,
        },
        { stdin: true },
      );
      const stderr = new PassThrough();
      void helper.exited.then(
        () => stderr.end(helper.stderr()),
        () => stderr.end(),
      );
      return {
        stdin: helper.stdin,
        stdout: helper.stdout,
        stderr,
        exited: helper.exited.then(
          (code) => (code === 137 ? null : code),
          () => null,
        ),
        kill: helper.kill,
      };
    },
  };
}

export function swarmSftp(ctx: SwarmContext): SwarmSftp {
  const options = ctx.options.sftp;
  let server: SftpServer | undefined;

  /** The site whose slug is `user`, on whichever region has it. */
  async function siteOf(user: string): Promise<{ region: Region; service: ServiceInfo } | undefined> {
    for (const region of ctx.regions.values()) {
      const services = (await region.manager
        .listServices({ filters: { label: [`${LABEL.slug}=${user}`, `${LABEL.type}=wordpress`] } })
        .catch(() => [])) as ServiceInfo[];
      const service = services.find((s) => s.Spec.Labels?.[LABEL.role] === 'app');
      if (service) return { region, service };
    }
    return undefined;
  }

  async function authenticate(user: string, password: string): Promise<SftpAccount | undefined> {
    if (!/^[a-z0-9]{12}$/.test(user)) return undefined;
    const found = await siteOf(user);
    const labels = found?.service.Spec.Labels ?? {};
    const hash = labels[SFTP_LABEL];
    const id = labels[LABEL.instance];
    const nodeId = labels[LABEL.node];
    // A suspended site (scaled to 0) takes no login.
    if (!found || !hash || !id || !nodeId || found.service.Spec.Mode?.Replicated?.Replicas === 0)
      return undefined;
    if (!(await verifySecret(password, hash))) return undefined;
    return helperSession(ctx, found.region, nodeId, instanceNames(id));
  }

  return {
    async start() {
      if (!options || server) return;
      await mkdir(path.dirname(options.hostKeyFile), { recursive: true, mode: 0o700 });
      server = createSftpServer({
        host: options.listenHost,
        port: options.port,
        hostKeyFile: options.hostKeyFile,
        authenticate,
        log: ctx.log,
      });
      await server.start();
    },
    async stop() {
      await server?.stop();
      server = undefined;
    },
    credentials: (names, password) => ({
      host: options?.publicHost ?? '',
      port: server?.port() ?? options?.port ?? 0,
      user: names.slug,
      password,
    }),
    disconnect: (names) => server?.disconnect(names.slug),
  };
}
