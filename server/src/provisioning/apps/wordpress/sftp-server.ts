import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { promisify } from 'node:util';
import type { ClientInfo, Connection, ServerChannel } from 'ssh2';
import ssh2 from 'ssh2';
import { createLoginLimiter, type LoginLimiterOptions } from './sftp-login-limiter.ts';

const { Server, utils } = ssh2;

/**
 * OpenSSH's SFTP server (Debian `openssh-sftp-server`), run per session as the site's user where only
 * the site's files are: in its sandbox (the local driver), in a helper container on its node (swarm).
 */
export const SFTP_SERVER = '/usr/lib/openssh/sftp-server';

/** One session's SFTP server: its pipes, its end, and a way to end it at once. */
export interface SftpSession {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  /** Resolves with its exit code when it ends (null: it was killed). */
  exited: Promise<number | null>;
  kill(): void;
}

/** A login's account: starts the SFTP server of one session (as the site's user, beside its files). */
export interface SftpAccount {
  session(): Promise<SftpSession>;
}

/** A child process as a session (the local driver's sandboxed sftp-server). */
export function processSession(child: ChildProcessWithoutNullStreams): SftpSession {
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    exited: new Promise((resolve) => {
      child.on('error', () => resolve(null));
      child.on('close', (code, signal) => resolve(signal === 'SIGKILL' ? null : code));
    }),
    kill: () => child.kill('SIGKILL'),
  };
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
   * Failed-login limits (defaults: 5 per user name from one address, 20 per address, within 15
   * minutes), and the clock they use; the log is the server's.
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

/**
 * A new ed25519 host key in OpenSSH form. ssh2's generator writes a malformed key now and then (about
 * 1 in 170: a public key whose first byte is zero comes out one byte short, and ssh2 itself then
 * refuses it), so a key is kept only once ssh2 parses it.
 */
export function newHostKey(): string {
  for (;;) {
    const key = utils.generateKeyPairSync('ed25519').private;
    if (!(utils.parseKey(key) instanceof Error)) return key;
  }
}

/** The host key in `file`; a new one when there is none, or when the one there cannot be parsed. */
async function hostKey(file: string): Promise<string> {
  if (existsSync(file)) {
    const kept = await readFile(file, 'utf8');
    if (!(utils.parseKey(kept) instanceof Error)) return kept;
  }
  const key = newHostKey();
  await writeFile(file, key, { mode: 0o600 });
  return key;
}

/**
 * Connects an accepted `sftp` channel to a new SFTP server. The API process holds no file and parses no
 * SFTP request: every file operation happens in that server, as the site's user, beside the site's
 * files only. Flow control is the pipes' (nothing buffers more than a window's worth).
 */
async function bridge(channel: ServerChannel, account: SftpAccount, log: (line: string) => void) {
  let session: SftpSession;
  try {
    session = await account.session();
  } catch (error) {
    log(`sftp: could not start a session: ${(error as Error).message}`);
    channel.exit(1);
    channel.end();
    return;
  }
  let errors = '';
  session.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-2000);
  });
  channel.pipe(session.stdin);
  session.stdout.pipe(channel);
  session.stdin.on('error', () => {}); // the server went away first: its exit ends the channel
  session.stdout.on('error', () => {});
  channel.on('error', () => {});
  channel.on('close', () => session.kill());
  const code = await session.exited;
  if (code !== 0 && code !== null) log(`sftp: session ended with ${code}: ${errors.trim()}`);
  // OpenSSH's sftp waits for the server to end the channel.
  if (!channel.destroyed) {
    channel.exit(code ?? 1);
    channel.end();
  }
}

/**
 * One SSH server in the API process for every site: password logins only, the `sftp` subsystem only
 * (no shell, exec or forwarding). It authenticates and then only passes bytes between the client and
 * the session's SFTP server process.
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
      // While the user name (from this address) or the address is locked, refused as a wrong password.
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
        session.on('subsystem', (accept, reject, request) => {
          if (request.name !== 'sftp' || !account) return reject();
          void bridge(accept(), account, log);
        });
        for (const event of ['shell', 'exec', 'pty', 'env', 'x11', 'signal', 'auth-agent'] as const) {
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

/** SFTP passwords are kept as salted scrypt hashes (`salt:hash`, hex), never as they are. */
const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  return `${salt.toString('hex')}:${(await scryptAsync(secret, salt, 32)).toString('hex')}`;
}

/** Whether `secret` is the one `stored` (hashSecret's) was made from. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [salt, hash] = stored.split(':');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'hex');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'hex'), expected.length);
  return timingSafeEqual(actual, expected);
}
