import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

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

/** Whether some installed PHP version (/etc/php/<x.y>) has the module `ini` (e.g. mysqli.ini) available. */
function phpModule(ini: string): () => boolean {
  return () => {
    if (!existsSync('/etc/php')) return false;
    return readdirSync('/etc/php').some((version) => existsSync(`/etc/php/${version}/mods-available/${ini}`));
  };
}

/**
 * The Debian packages WordPress sites run from (Caddy in front, php-fpm, Debian's WordPress core and its
 * default theme, the MariaDB client tools for backups, bubblewrap for the sandboxes, OpenSSH's SFTP
 * server), with the test proving each is there. `wordpress`
 * depends on `apache2 | httpd`, so apt brings apache2 along; the driver never starts it.
 */
export const SITE_PACKAGES: readonly { package: string; present: () => boolean }[] = [
  { package: 'caddy', present: () => existsSync('/usr/bin/caddy') },
  {
    package: 'php-fpm',
    present: () =>
      existsSync('/usr/sbin') && readdirSync('/usr/sbin').some((f) => /^php-fpm\d+\.\d+$/.test(f)),
  },
  { package: 'php-cli', present: () => existsSync('/usr/bin/php') },
  { package: 'php-mysql', present: phpModule('mysqli.ini') },
  { package: 'php-curl', present: phpModule('curl.ini') },
  { package: 'php-gd', present: phpModule('gd.ini') },
  { package: 'php-xml', present: phpModule('dom.ini') },
  { package: 'php-mbstring', present: phpModule('mbstring.ini') },
  { package: 'php-zip', present: phpModule('zip.ini') },
  { package: 'php-intl', present: phpModule('intl.ini') },
  { package: 'wordpress', present: () => existsSync('/usr/share/wordpress/wp-settings.php') },
  {
    package: 'wordpress-theme-twentytwentythree',
    present: () => existsSync('/usr/share/wordpress/wp-content/themes/twentytwentythree/style.css'),
  },
  {
    package: 'mariadb-client',
    present: () => existsSync('/usr/bin/mariadb') && existsSync('/usr/bin/mariadb-dump'),
  },
  // Each site's sandbox, and the SFTP server its sessions run in it.
  { package: 'bubblewrap', present: () => existsSync('/usr/bin/bwrap') },
  { package: 'openssh-sftp-server', present: () => existsSync('/usr/lib/openssh/sftp-server') },
  // Each site's disk (an ext4 image); on every Debian system, named for minimal images.
  { package: 'e2fsprogs', present: () => existsSync('/usr/sbin/mkfs.ext4') },
];

/** The site packages whose files are absent. */
export function missingSitePackages(): string[] {
  return SITE_PACKAGES.filter((entry) => !entry.present()).map((entry) => entry.package);
}

/** n8n instances: pasta (Debian package passt) gives each its own network namespace (n8n-sandbox.ts). */
const N8N_PACKAGES: readonly { package: string; present: () => boolean }[] = [
  { package: 'passt', present: () => existsSync('/usr/bin/pasta') },
];

export function missingN8nPackages(): string[] {
  return N8N_PACKAGES.filter((entry) => !entry.present()).map((entry) => entry.package);
}

/**
 * phpMyAdmin for MySQL instances (local/phpmyadmin/): Debian's package, and `dbconfig-no-thanks`, which
 * keeps its install from asking for (or making) a configuration database the driver never uses. Its
 * sandbox's network comes from pasta (N8N_PACKAGES).
 */
const PHPMYADMIN_PACKAGES: readonly { package: string; present: () => boolean }[] = [
  { package: 'phpmyadmin', present: () => existsSync('/usr/share/phpmyadmin/index.php') },
  { package: 'dbconfig-no-thanks', present: () => existsSync('/usr/share/phpmyadmin/index.php') },
];

export function missingPhpMyAdminPackages(): string[] {
  return PHPMYADMIN_PACKAGES.filter((entry) => !entry.present()).map((entry) => entry.package);
}
