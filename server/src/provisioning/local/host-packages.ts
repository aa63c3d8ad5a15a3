import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The Debian packages the local driver runs its database servers from, and the binary proving each. */
export const HOST_PACKAGES = {
  mariadb: { package: 'mariadb-server', binaries: ['/usr/sbin/mariadbd', '/usr/bin/mariadb-install-db'] },
  postgresql: { package: 'postgresql', binaries: ['/usr/lib/postgresql/15/bin/postgres'] },
} as const;

export type LocalEngine = keyof typeof HOST_PACKAGES;

/** The Debian packages whose binaries are absent (for all engines, or the given ones). */
export function missingHostPackages(engines: readonly LocalEngine[] = ['mariadb', 'postgresql']): string[] {
  return engines
    .map((engine) => HOST_PACKAGES[engine])
    .filter((entry) => entry.binaries.some((binary) => !existsSync(binary)))
    .map((entry) => entry.package);
}

export function aptInstallLine(packages: readonly string[]): string {
  return `apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

function canInstall(): boolean {
  return process.getuid?.() === 0 && existsSync('/etc/debian_version') && existsSync('/usr/bin/apt-get');
}

function run(command: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    // `env` sets DEBIAN_FRONTEND without touching our own environment. Debian's maintainer scripts try to
    // start the system services; in containers policy-rc.d refuses that, and the driver never uses them.
    const child = spawn('/usr/bin/env', ['DEBIAN_FRONTEND=noninteractive', command, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.trim()}`));
    });
    log(`running ${command} ${args.join(' ')}`);
  });
}

/**
 * Installs the missing packages with apt-get when running as root on Debian (refreshing the package
 * lists once if the first attempt fails, as on a fresh container). Otherwise throws with the exact
 * command an operator should run.
 */
export async function installHostPackages(
  packages: readonly string[] = missingHostPackages(),
  log: (line: string) => void = () => {},
): Promise<void> {
  if (packages.length === 0) return;
  if (!canInstall()) {
    throw new Error(`Missing host packages; as root on Debian run: ${aptInstallLine(packages)}`);
  }
  const args = ['install', '-y', '--no-install-recommends', ...packages];
  try {
    await run('apt-get', args, log);
  } catch {
    await run('apt-get', ['update'], log);
    await run('apt-get', args, log);
  }
}
