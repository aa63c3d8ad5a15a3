import http from 'node:http';
import path from 'node:path';
import { z } from 'zod';
import { freePort } from '../../../lib/free-port.ts';
import { processSession, SFTP_SERVER, type SftpAccount } from '../../apps/wordpress/sftp-server.ts';
import { readState, writeState } from '../host/host.ts';
import { spawnSandbox } from '../host/seccomp.ts';
import { SANDBOX_ENV, type SandboxSite, sandboxArgs, siteLaunch } from './site-sandbox.ts';

const SftpStateSchema = z.object({ port: z.number().int() });

/** The configured port, else the one remembered, else 2222 when free, else any free port; remembered. */
export async function chooseSftpPort(
  root: string,
  listenHost: string,
  wanted: number | undefined,
): Promise<number> {
  const file = path.join(root, 'sftp.json');
  const known = await readState(file, SftpStateSchema);
  const port =
    wanted ??
    known?.port ??
    (await new Promise<number>((resolve) => {
      const probe = http.createServer();
      probe.once('error', () => freePort().then(resolve));
      probe.listen(2222, listenHost, () => probe.close(() => resolve(2222)));
    }));
  await writeState(file, { port });
  return port;
}

/**
 * A login's sessions: OpenSSH's sftp-server as the site user in its sandbox (no network, only the site's
 * folders writable), no file larger than the site's disk (a SETSTAT to a huge size fails instead of
 * making a sparse monster), dying with the API process.
 */
export function sandboxedSftp(site: SandboxSite, maxFileBytes: number): SftpAccount {
  return {
    session: async () => {
      const line = siteLaunch(site, [
        ...sandboxArgs(site, 'sftp', { chdir: '/', dieWithParent: true }),
        '--',
        '/usr/bin/prlimit',
        `--fsize=${maxFileBytes}`,
        '--',
        SFTP_SERVER,
        '-d',
        '/',
        '-u',
        '022',
        '-e',
        '-l',
        'ERROR',
      ]);
      return processSession(
        spawnSandbox(line.command, line.args, { uid: line.uid, gid: line.gid, env: SANDBOX_ENV }),
      );
    },
  };
}
