import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SftpCredentials } from '../../src/provisioning/engine.ts';
import {
  aptInstallLine,
  installHostPackages,
  missingHostPackages,
  missingN8nPackages,
  missingPhpMyAdminPackages,
  missingSitePackages,
  SITE_PACKAGES,
} from '../../src/provisioning/local/host/host-packages.ts';

/**
 * What the tests of the front door's applications need on the host: the site packages, MariaDB (the
 * tenants), phpMyAdmin with pasta (MySQL instances' phpMyAdmin), and the real clients the tests use
 * (`curl`, OpenSSH's `sftp`).
 */
const SITE_TEST_PACKAGES = [
  'mariadb-server',
  ...SITE_PACKAGES.map((entry) => entry.package),
  'passt',
  'phpmyadmin',
  'dbconfig-no-thanks',
  'openssh-client',
  'curl',
];
const SITE_TEST_APT_LINE = `apt-get update && ${aptInstallLine(SITE_TEST_PACKAGES)}`;

const CLIENTS: Record<string, string> = { 'openssh-client': '/usr/bin/sftp', curl: '/usr/bin/curl' };

/** Installs what is missing when root on Debian; otherwise fails naming the apt line (never skips). */
export async function ensureSiteTestPackages(): Promise<void> {
  const missing = [
    ...missingHostPackages(['mariadb']),
    ...missingSitePackages(),
    ...missingN8nPackages(),
    ...missingPhpMyAdminPackages(),
    ...Object.entries(CLIENTS)
      .filter(([, binary]) => !existsSync(binary))
      .map(([pkg]) => pkg),
  ];
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0 || !existsSync('/etc/debian_version')) {
    throw new Error(
      `The WordPress site tests need the Debian packages ${missing.join(' ')}. As root run: ${SITE_TEST_APT_LINE}`,
    );
  }
  const started = performance.now();
  await installHostPackages(SITE_TEST_PACKAGES, (line) => console.log(`[apt] ${line}`));
  console.log(
    `[apt] installed ${missing.join(' ')} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCommand(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        env: { PATH: '/usr/bin:/bin', ...options.env },
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 30_000,
        maxBuffer: 20 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The real curl: `-s -S`, plus the response's status and headers via `-w`/`-D -`. */
export async function curl(
  args: string[],
): Promise<RunResult & { status: number; body: string; headers: string }> {
  const result = await runCommand('/usr/bin/curl', ['-sS', '-D', '-', '-w', '\n%{http_code}', ...args]);
  const lines = result.stdout.split('\n');
  const status = Number(lines.pop());
  const text = lines.join('\n');
  const split = text.indexOf('\r\n\r\n');
  return {
    ...result,
    status,
    headers: split >= 0 ? text.slice(0, split) : text,
    body: split >= 0 ? text.slice(split + 4) : '',
  };
}

/**
 * Runs OpenSSH's `sftp` in batch mode with a password: `-b` implies BatchMode=yes, which disables
 * password prompts, so `-oBatchMode=no` comes first; the password comes from an SSH_ASKPASS script.
 * Commands prefixed with '-' may fail without ending the batch.
 */
export async function sftpBatch(
  credentials: SftpCredentials,
  commands: string[],
  cwd: string,
): Promise<RunResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'berth-sftp-'));
  try {
    const askpass = path.join(dir, 'askpass.sh');
    await writeFile(askpass, '#!/bin/sh\nprintf "%s\\n" "$BERTH_SFTP_PASSWORD"\n', { mode: 0o700 });
    const batch = path.join(dir, 'batch');
    await writeFile(batch, `${commands.join('\n')}\n`);
    return await runCommand(
      '/usr/bin/sftp',
      [
        '-oBatchMode=no',
        '-b',
        batch,
        '-P',
        String(credentials.port),
        '-oStrictHostKeyChecking=no',
        '-oUserKnownHostsFile=/dev/null',
        '-oLogLevel=ERROR',
        '-oPubkeyAuthentication=no',
        '-oPreferredAuthentications=password',
        '-oNumberOfPasswordPrompts=1',
        `${credentials.user}@${credentials.host}`,
      ],
      {
        cwd,
        env: {
          SSH_ASKPASS: askpass,
          SSH_ASKPASS_REQUIRE: 'force',
          DISPLAY: ':0',
          BERTH_SFTP_PASSWORD: credentials.password,
          HOME: dir,
        },
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
