// System packages the tests need, installed with apt-get when missing (as root on Debian), otherwise
// named with the exact command to run.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface SystemPackage {
  /** A file the package installs; its presence means the package is there. */
  probe: string;
  /** Package name(s) to install when the probe is missing. */
  apt: string;
  why: string;
}

export const TEST_PACKAGES: SystemPackage[] = [
  { probe: '/usr/bin/chromium', apt: 'chromium', why: 'browser end-to-end tests' },
  { probe: '/usr/bin/dbus-run-session', apt: 'dbus', why: 'desktop keychain test (session bus)' },
  {
    probe: '/usr/bin/gnome-keyring-daemon',
    apt: 'gnome-keyring',
    why: 'desktop keychain test (Secret Service)',
  },
  { probe: '/usr/sbin/mariadbd', apt: 'mariadb-server', why: 'MySQL instances (local provisioning driver)' },
  {
    probe: '/usr/bin/mariadb',
    apt: 'mariadb-client',
    why: 'tests connect to MySQL instances like a customer',
  },
  {
    probe: '/usr/lib/postgresql/15/bin/postgres',
    apt: 'postgresql',
    why: 'PostgreSQL instances (local driver)',
  },
  { probe: '/usr/bin/psql', apt: 'postgresql-client', why: 'tests connect to PostgreSQL instances' },
  { probe: '/usr/bin/caddy', apt: 'caddy', why: 'front door of WordPress sites' },
  {
    probe: '/usr/bin/php',
    apt: 'php-cli php-fpm php-mysql php-curl php-gd php-xml php-mbstring php-zip php-intl',
    why: 'WordPress sites (php-fpm pools, install script)',
  },
  { probe: '/usr/share/wordpress/wp-settings.php', apt: 'wordpress', why: 'WordPress core' },
  {
    probe: '/usr/share/wordpress/wp-content/themes/twentytwentythree/style.css',
    apt: 'wordpress-theme-twentytwentythree',
    why: 'the theme new sites start with',
  },
  { probe: '/usr/bin/bwrap', apt: 'bubblewrap', why: "each WordPress site's sandbox" },
  {
    probe: '/usr/lib/openssh/sftp-server',
    apt: 'openssh-sftp-server',
    why: "SFTP sessions, run in the site's sandbox",
  },
  { probe: '/usr/sbin/mkfs.ext4', apt: 'e2fsprogs', why: "each WordPress site's disk" },
  { probe: '/usr/bin/pasta', apt: 'passt', why: "each n8n instance's own network (pasta)" },
  {
    probe: '/usr/bin/ip',
    apt: 'iproute2',
    why: "blocks link-local (cloud metadata) addresses in each n8n instance's network",
  },
  { probe: '/usr/bin/g++', apt: 'g++ make', why: "the n8n runtime's sqlite3 addon (built from source)" },
  { probe: '/usr/bin/sftp', apt: 'openssh-client', why: 'tests reach sites over SFTP' },
  { probe: '/usr/bin/curl', apt: 'curl', why: 'tests fetch sites over HTTP(S)' },
];

/** What `npm run swarm:local` (and the swarm driver's tests) need on this host. */
export const SWARM_PACKAGES: SystemPackage[] = [
  { probe: '/usr/sbin/dockerd', apt: 'docker.io', why: 'a local Docker Swarm (each node a dockerd)' },
  { probe: '/usr/sbin/debootstrap', apt: 'debootstrap', why: "the swarm driver's images (Debian base)" },
  { probe: '/usr/sbin/iptables', apt: 'iptables', why: "dockerd's and Berth's agent's rules in each node" },
  { probe: '/usr/sbin/mkfs.ext4', apt: 'e2fsprogs', why: "instances' disks on each node (Berth's agent)" },
  { probe: '/usr/bin/nsenter', apt: 'util-linux', why: 'each node a network namespace of its own' },
];

TEST_PACKAGES.push(...SWARM_PACKAGES.filter((p) => !TEST_PACKAGES.some((t) => t.apt === p.apt)));

export function ensureSystemPackages(packages: SystemPackage[]): void {
  const missing = packages.filter((p) => !existsSync(p.probe));
  if (missing.length === 0) return;
  const names = missing.map((p) => p.apt);
  const line = `apt-get install -y --no-install-recommends ${names.join(' ')}`;
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    for (const p of missing) console.error(`[berth] missing ${p.apt} (${p.why})`);
    throw new Error(`Install the missing system packages first: sudo ${line}`);
  }
  console.log(`[berth] installing system packages: ${names.join(', ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const result = spawnSync('sh', ['-c', `${line} -qq`], { stdio: 'inherit', env });
  if (result.status !== 0) throw new Error(`${line} failed`);
}
