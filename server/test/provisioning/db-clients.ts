import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { DatabaseCredentials } from '../../src/provisioning/engine.ts';
import { mariadbPaths } from '../../src/provisioning/local/databases/mariadb-server.ts';
import { postgresPaths } from '../../src/provisioning/local/databases/postgres-server.ts';
import { installHostPackages, missingHostPackages } from '../../src/provisioning/local/host/host-packages.ts';

/** Servers for the driver plus the real command-line clients the tests log in with. */
const TEST_PACKAGES = ['mariadb-server', 'mariadb-client', 'postgresql', 'postgresql-client'];
const TEST_APT_LINE = `apt-get update && apt-get install -y --no-install-recommends ${TEST_PACKAGES.join(' ')}`;

const MARIADB_CLIENT = '/usr/bin/mariadb';
const PSQL = '/usr/bin/psql';
const CLIENT_BINARIES: Record<string, string> = {
  'mariadb-client': MARIADB_CLIENT,
  'postgresql-client': '/usr/lib/postgresql/15/bin/psql',
};

/**
 * Installs the packages when they are missing and we may (root on Debian); otherwise fails with the
 * command to run. Never skips: a provisioning test that did not run must not look green.
 */
export async function ensureTestPackages(): Promise<void> {
  const missing = [
    ...missingHostPackages(),
    ...Object.entries(CLIENT_BINARIES)
      .filter(([, binary]) => !existsSync(binary))
      .map(([pkg]) => pkg),
  ];
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0 || !existsSync('/etc/debian_version')) {
    throw new Error(
      `The provisioning tests need the Debian packages ${missing.join(' ')}. As root run: ${TEST_APT_LINE}`,
    );
  }
  const started = performance.now();
  await installHostPackages(TEST_PACKAGES, (line) => console.log(`[apt] ${line}`));
  console.log(
    `[apt] installed ${missing.join(' ')} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

export interface CliResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(command, args, { env: { ...process.env, ...env }, timeout: 15_000 }, (error, stdout, stderr) => {
      resolve({ ok: !error, stdout: stdout.trim(), stderr: stderr.trim() });
    });
  });
}

/**
 * Runs SQL with the real `mariadb` client over TCP, as the tenant; over TLS to a server that requires it
 * (`credentials.tls`: a server of the instance's own), without verifying it.
 */
export function mariadbCli(credentials: DatabaseCredentials, sql: string, database = credentials.database) {
  return run(
    MARIADB_CLIENT,
    [
      '--no-defaults',
      '--protocol=TCP',
      ...(credentials.tls ? ['--ssl'] : []),
      `--host=${credentials.host}`,
      `--port=${credentials.port}`,
      `--user=${credentials.user}`,
      `--database=${database}`,
      '--connect-timeout=5',
      '--batch',
      '--skip-column-names',
      `--execute=${sql}`,
    ],
    { MYSQL_PWD: credentials.password },
  );
}

/** Runs SQL with the real `psql` client over TCP, as the tenant. */
function psqlCli(credentials: DatabaseCredentials, sql: string, database = credentials.database) {
  return run(
    PSQL,
    [
      '--no-psqlrc',
      '--quiet',
      '--no-align',
      '--tuples-only',
      '--set=ON_ERROR_STOP=1',
      `--host=${credentials.host}`,
      `--port=${credentials.port}`,
      `--username=${credentials.user}`,
      `--dbname=${database}`,
      `--command=${sql}`,
    ],
    { PGPASSWORD: credentials.password, PGCONNECT_TIMEOUT: '5' },
  );
}

/** Runs SQL as the tenant with the engine's own client. */
export function tenantCli(type: 'mysql' | 'postgresql', credentials: DatabaseCredentials, sql: string) {
  return type === 'mysql' ? mariadbCli(credentials, sql) : psqlCli(credentials, sql);
}

/** The admin's view of the local servers of `root` (socket root for MariaDB, provisioner for PostgreSQL). */
export async function adminCli(type: 'mysql' | 'postgresql', root: string, sql: string): Promise<CliResult> {
  if (type === 'mysql') {
    const socket = mariadbPaths(root).socket;
    return run(
      MARIADB_CLIENT,
      ['--no-defaults', `--socket=${socket}`, '--user=root', '-N', '-B', '-e', sql],
      {},
    );
  }
  const state = JSON.parse(await readFile(postgresPaths(root).stateFile, 'utf8')) as {
    port: number;
    adminPassword: string;
  };
  return psqlCli(
    {
      host: '127.0.0.1',
      port: state.port,
      user: 'provisioner',
      password: state.adminPassword,
      database: 'postgres',
    },
    sql,
  );
}
