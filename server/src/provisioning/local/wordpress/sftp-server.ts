import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import type { ClientInfo, Connection, ServerChannel } from 'ssh2';
import ssh2 from 'ssh2';
import { createLoginLimiter, type LoginLimiterOptions } from './sftp-login-limiter.ts';

const { Server, utils } = ssh2;

/** OpenSSH's SFTP server (Debian `openssh-sftp-server`), run per session inside the site's sandbox. */
export const SFTP_SERVER = '/usr/lib/openssh/sftp-server';

/** A login's account: starts the SFTP server of one session (as the site user, in its sandbox). */
export interface SftpAccount {
  session(): ChildProcessWithoutNullStreams;
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
 * Connects an accepted `sftp` channel to a new SFTP server process. The API process holds no file
 * and parses no SFTP request: every file operation happens in that process, as the site user, in the
 * site's sandbox. Flow control is the pipes' (nothing buffers more than a window's worth).
 */
function bridge(channel: ServerChannel, account: SftpAccount, log: (line: string) => void): void {
  let child: ChildProcessWithoutNullStreams;
  try {
    child = account.session();
  } catch (error) {
    log(`sftp: could not start a session: ${(error as Error).message}`);
    channel.exit(1);
    channel.end();
    return;
  }
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-2000);
  });
  channel.pipe(child.stdin);
  child.stdout.pipe(channel);
  child.stdin.on('error', () => {}); // the server went away first: its exit ends the channel
  channel.on('error', () => {});
  channel.on('close', () => child.kill('SIGKILL'));
  child.on('error', (error) => log(`sftp: session process: ${error.message}`));
  child.on('close', (code, signal) => {
    if (code !== 0 && signal !== 'SIGKILL')
      log(`sftp: session ended with ${code ?? signal}: ${errors.trim()}`);
    // OpenSSH's sftp waits for the server to end the channel.
    if (!channel.destroyed) {
      channel.exit(code ?? 1);
      channel.end();
    }
  });
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
          bridge(accept(), account, log);
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
