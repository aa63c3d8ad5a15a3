import type { Stats } from 'node:fs';
import { existsSync } from 'node:fs';
import {
  chmod,
  chown,
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  realpath,
  rename,
  rmdir,
  stat,
  truncate,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import type { Attributes, ClientInfo, Connection, FileEntry, SFTPWrapper } from 'ssh2';
import ssh2 from 'ssh2';
import { PathRefusedError, resolveInRoot, virtualPath } from './chroot-path.ts';
import type { OsUser } from './host.ts';
import { createLoginLimiter, type LoginLimiterOptions } from './sftp-login-limiter.ts';

const { Server, utils } = ssh2;
const STATUS = utils.sftp.STATUS_CODE;

/** Where a login lands: its chroot, and who owns what it creates (root only). */
export interface SftpAccount {
  root: string;
  owner: OsUser | undefined;
}

export interface SftpServerOptions {
  host: string;
  port: number;
  /** The host key (OpenSSH ed25519 private key), generated at first start, mode 600. */
  hostKeyFile: string;
  /** The account for a user name and password, or undefined to refuse the login. */
  authenticate(user: string, password: string): Promise<SftpAccount | undefined>;
  log: (line: string) => void;
  /**
   * Failed-login limits (defaults: 5 per user name, 20 per remote address, within 15 minutes), and
   * the clock they use; the log is the server's.
   */
  loginLimits?: Omit<LoginLimiterOptions, 'log'>;
}

export interface SftpServer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Ends the live sessions of a login (deleted or suspended site). */
  disconnect(user: string): void;
  connections(): number;
  /** Whether it accepts connections now. */
  listening(): boolean;
  /** The port it listens on (the one chosen when started with port 0), or undefined when stopped. */
  port(): number | undefined;
}

async function hostKey(file: string): Promise<string> {
  if (!existsSync(file)) {
    const pair = utils.generateKeyPairSync('ed25519');
    await writeFile(file, pair.private, { mode: 0o600 });
  }
  return readFile(file, 'utf8');
}

function attributes(stats: Stats): Attributes {
  return {
    mode: stats.mode,
    uid: stats.uid,
    gid: stats.gid,
    size: stats.size,
    atime: Math.floor(stats.atimeMs / 1000),
    mtime: Math.floor(stats.mtimeMs / 1000),
  };
}

/** An `ls -l` line, which clients show for `ls -l`. */
function longname(name: string, stats: Stats): string {
  const type = stats.isDirectory() ? 'd' : stats.isSymbolicLink() ? 'l' : '-';
  const bits = 'rwxrwxrwx'
    .split('')
    .map((letter, i) => (stats.mode & (0o400 >> i) ? letter : '-'))
    .join('');
  const date = stats.mtime.toISOString().slice(0, 16).replace('T', ' ');
  return `${type}${bits} 1 ${stats.uid} ${stats.gid} ${String(stats.size).padStart(10)} ${date} ${name}`;
}

type Handle =
  | { kind: 'file'; file: FileHandle }
  | { kind: 'dir'; dir: string; virtual: string; listed: boolean };

/**
 * The sftp subsystem for one session, confined to `account.root`: REALPATH, STAT/LSTAT/FSTAT,
 * OPENDIR/READDIR, OPEN/READ/WRITE/CLOSE, MKDIR/RMDIR/REMOVE/RENAME, SETSTAT/FSETSTAT. What it creates
 * belongs to the site user. Symbolic links are neither created nor read (OP_UNSUPPORTED).
 */
function serveSftp(sftp: SFTPWrapper, account: SftpAccount, log: (line: string) => void): void {
  const root = account.root;
  const handles = new Map<string, Handle>();
  let nextHandle = 0;
  const newHandle = (entry: Handle): Buffer => {
    const id = Buffer.alloc(4);
    id.writeUInt32BE(nextHandle++);
    handles.set(id.toString('hex'), entry);
    return id;
  };

  const fail = (reqId: number, error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof PathRefusedError)
      return sftp.status(reqId, STATUS.PERMISSION_DENIED, 'Permission denied');
    if (code === 'ENOENT') return sftp.status(reqId, STATUS.NO_SUCH_FILE, 'No such file');
    if (code === 'EACCES' || code === 'EPERM')
      return sftp.status(reqId, STATUS.PERMISSION_DENIED, 'Permission denied');
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EISDIR' && code !== 'ENOTDIR') {
      log(`sftp: ${(error as Error).message}`);
    }
    sftp.status(reqId, STATUS.FAILURE, (error as Error).message.replaceAll(root, ''));
  };
  /** Runs an operation, answering its error as an SFTP status. */
  const run = (reqId: number, operation: () => Promise<void>) => {
    operation().catch((error: unknown) => fail(reqId, error));
  };
  const own = async (file: string) => {
    if (account.owner) await chown(file, account.owner.uid, account.owner.gid);
  };
  const resolve = (p: string, followLast = true) => resolveInRoot(root, p, followLast);

  sftp.on('REALPATH', (reqId, requested) =>
    run(reqId, async () => {
      const virtual = virtualPath(requested);
      await resolve(virtual);
      sftp.name(reqId, [{ filename: virtual, longname: virtual, attrs: {} as Attributes }]);
    }),
  );
  sftp.on('STAT', (reqId, p) =>
    run(reqId, async () => sftp.attrs(reqId, attributes(await stat(await resolve(p))))),
  );
  sftp.on('LSTAT', (reqId, p) =>
    run(reqId, async () => sftp.attrs(reqId, attributes(await lstat(await resolve(p, false))))),
  );

  sftp.on('OPEN', (reqId, p, flags, attrs) =>
    run(reqId, async () => {
      const file = await resolve(p);
      const mode = utils.sftp.flagsToString(flags);
      if (!mode) return sftp.status(reqId, STATUS.OP_UNSUPPORTED, 'Unsupported open flags');
      const created = !existsSync(file);
      const handle = await open(file, mode, (attrs?.mode ?? 0o644) & 0o777);
      if (created) await own(file);
      sftp.handle(reqId, newHandle({ kind: 'file', file: handle }));
    }),
  );
  sftp.on('READ', (reqId, id, offset, length) =>
    run(reqId, async () => {
      const entry = handles.get(id.toString('hex'));
      if (entry?.kind !== 'file') return sftp.status(reqId, STATUS.FAILURE, 'Invalid handle');
      const { buffer, bytesRead } = await entry.file.read(Buffer.alloc(length), 0, length, offset);
      if (bytesRead === 0) return sftp.status(reqId, STATUS.EOF);
      sftp.data(reqId, buffer.subarray(0, bytesRead));
    }),
  );
  sftp.on('WRITE', (reqId, id, offset, data) =>
    run(reqId, async () => {
      const entry = handles.get(id.toString('hex'));
      if (entry?.kind !== 'file') return sftp.status(reqId, STATUS.FAILURE, 'Invalid handle');
      await entry.file.write(data, 0, data.length, offset);
      sftp.status(reqId, STATUS.OK);
    }),
  );
  sftp.on('FSTAT', (reqId, id) =>
    run(reqId, async () => {
      const entry = handles.get(id.toString('hex'));
      if (entry?.kind !== 'file') return sftp.status(reqId, STATUS.FAILURE, 'Invalid handle');
      sftp.attrs(reqId, attributes(await entry.file.stat()));
    }),
  );
  sftp.on('CLOSE', (reqId, id) =>
    run(reqId, async () => {
      const key = id.toString('hex');
      const entry = handles.get(key);
      if (!entry) return sftp.status(reqId, STATUS.FAILURE, 'Invalid handle');
      handles.delete(key);
      if (entry.kind === 'file') await entry.file.close();
      sftp.status(reqId, STATUS.OK);
    }),
  );

  /** Mode, size and times; ownership stays the site user's. */
  const setAttributes = async (file: string, attrs: Partial<Attributes>) => {
    if (attrs.mode !== undefined) await chmod(file, attrs.mode & 0o7777 & ~0o6000);
    if (attrs.size !== undefined) await truncate(file, attrs.size);
    if (attrs.atime !== undefined && attrs.mtime !== undefined) await utimes(file, attrs.atime, attrs.mtime);
  };
  sftp.on('SETSTAT', (reqId, p, attrs) =>
    run(reqId, async () => {
      await setAttributes(await resolve(p), attrs);
      sftp.status(reqId, STATUS.OK);
    }),
  );
  sftp.on('FSETSTAT', (reqId, id, attrs) =>
    run(reqId, async () => {
      const entry = handles.get(id.toString('hex'));
      if (entry?.kind !== 'file') return sftp.status(reqId, STATUS.FAILURE, 'Invalid handle');
      if (attrs.mode !== undefined) await entry.file.chmod(attrs.mode & 0o7777 & ~0o6000);
      if (attrs.size !== undefined) await entry.file.truncate(attrs.size);
      if (attrs.atime !== undefined && attrs.mtime !== undefined)
        await entry.file.utimes(attrs.atime, attrs.mtime);
      sftp.status(reqId, STATUS.OK);
    }),
  );

  sftp.on('OPENDIR', (reqId, p) =>
    run(reqId, async () => {
      const dir = await resolve(p);
      if (!(await stat(dir)).isDirectory()) return sftp.status(reqId, STATUS.FAILURE, 'Not a directory');
      sftp.handle(reqId, newHandle({ kind: 'dir', dir, virtual: virtualPath(p), listed: false }));
    }),
  );
  sftp.on('READDIR', (reqId, id) =>
    run(reqId, async () => {
      const entry = handles.get(id.toString('hex'));
      if (entry?.kind !== 'dir') return sftp.status(reqId, STATUS.FAILURE, 'Invalid handle');
      if (entry.listed) return sftp.status(reqId, STATUS.EOF);
      entry.listed = true;
      const names: FileEntry[] = [];
      for (const name of ['.', '..', ...(await readdir(entry.dir))]) {
        // `..` of the root is the root itself: nothing above it is shown either.
        const file = name === '..' && entry.dir === root ? root : path.join(entry.dir, name);
        try {
          const stats = await lstat(file);
          names.push({ filename: name, longname: longname(name, stats), attrs: attributes(stats) });
        } catch {
          // removed meanwhile
        }
      }
      sftp.name(reqId, names);
    }),
  );

  sftp.on('MKDIR', (reqId, p, attrs) =>
    run(reqId, async () => {
      const dir = await resolve(p);
      await mkdir(dir, (attrs?.mode ?? 0o755) & 0o777);
      await own(dir);
      sftp.status(reqId, STATUS.OK);
    }),
  );
  sftp.on('RMDIR', (reqId, p) =>
    run(reqId, async () => {
      const dir = await resolve(p, false);
      if (dir === root) return sftp.status(reqId, STATUS.PERMISSION_DENIED, 'Permission denied');
      await rmdir(dir);
      sftp.status(reqId, STATUS.OK);
    }),
  );
  sftp.on('REMOVE', (reqId, p) =>
    run(reqId, async () => {
      const file = await resolve(p, false);
      if ((await lstat(file)).isDirectory()) return sftp.status(reqId, STATUS.FAILURE, 'Is a directory');
      await unlink(file);
      sftp.status(reqId, STATUS.OK);
    }),
  );
  sftp.on('RENAME', (reqId, from, to) =>
    run(reqId, async () => {
      const source = await resolve(from, false);
      const target = await resolve(to, false);
      if (source === root) return sftp.status(reqId, STATUS.PERMISSION_DENIED, 'Permission denied');
      // SFTP v3: renaming onto an existing file fails.
      if (existsSync(target)) return sftp.status(reqId, STATUS.FAILURE, 'Target exists');
      await rename(source, target);
      sftp.status(reqId, STATUS.OK);
    }),
  );
  for (const event of ['READLINK', 'SYMLINK'] as const) {
    sftp.on(event, (reqId: number) =>
      sftp.status(reqId, STATUS.OP_UNSUPPORTED, 'Symbolic links are not supported'),
    );
  }
  sftp.on('EXTENDED', (reqId) => sftp.status(reqId, STATUS.OP_UNSUPPORTED));

  const closeAll = () => {
    for (const entry of handles.values()) if (entry.kind === 'file') entry.file.close().catch(() => {});
    handles.clear();
  };
  // OpenSSH's sftp waits for the server to end the channel after it ended its side.
  sftp.on('end', () => {
    closeAll();
    sftp.end();
  });
  sftp.on('close', closeAll);
}

/**
 * One SSH server in the API process for every site: password logins only, the `sftp` subsystem only
 * (no shell, exec or forwarding), each login confined to its site's directory.
 */
export function createSftpServer(options: SftpServerOptions): SftpServer {
  const { log } = options;
  let server: InstanceType<typeof Server> | undefined;
  const live = new Map<Connection, string>();
  const limiter = createLoginLimiter({ ...options.loginLimits, log });

  function onClient(client: Connection, info: ClientInfo): void {
    let account: SftpAccount | undefined;
    client.on('error', (error) => log(`sftp: client error: ${error.message}`));
    client.on('close', () => live.delete(client));
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'password') return ctx.reject(['password']);
      // While the user name or the address is locked, refused as a wrong password would be.
      const { username, password } = ctx;
      limiter
        .attempt(username, info.ip, () => options.authenticate(username, password))
        .then(
          (found) => {
            if (!found) return ctx.reject(['password']);
            account = found;
            live.set(client, ctx.username);
            ctx.accept();
          },
          (error: Error) => {
            log(`sftp: authentication of ${ctx.username} failed: ${error.message}`);
            ctx.reject(['password']);
          },
        );
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('sftp', (acceptSftp) => {
          if (!account) return;
          serveSftp(acceptSftp(), account, log);
        });
        for (const event of ['shell', 'exec', 'pty', 'subsystem', 'env', 'x11'] as const) {
          session.on(event, (_accept: unknown, reject?: () => void) => reject?.());
        }
      });
      client.on('tcpip', (_accept, reject) => reject());
      client.on('openssh.streamlocal', (_accept, reject) => reject());
      client.on('request', (_accept, reject) => reject?.());
    });
  }

  return {
    async start() {
      if (server) return;
      const key = await hostKey(options.hostKeyFile);
      const created = new Server({ hostKeys: [key], ident: 'Berth-SFTP' }, onClient);
      await new Promise<void>((resolve, reject) => {
        created.once('error', reject);
        created.listen(options.port, options.host, () => {
          created.off('error', reject);
          resolve();
        });
      });
      created.on('error', (error: Error) => log(`sftp: ${error.message}`));
      server = created;
    },
    async stop() {
      const current = server;
      server = undefined;
      for (const client of live.keys()) client.end();
      live.clear();
      if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    disconnect(user) {
      for (const [client, name] of live) if (name === user) client.end();
    },
    connections: () => live.size,
    listening: () => server?.address() != null,
    port() {
      const address = server?.address();
      return address && typeof address === 'object' ? address.port : undefined;
    },
  };
}

/** The real directory a login is confined to (symbolic links resolved once, at login). */
export const realRoot = (dir: string): Promise<string> => realpath(dir);
