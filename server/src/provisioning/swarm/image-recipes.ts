import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CUSTOMER_PHP_RULES } from '../apps/php-rules.ts';

/**
 * The images Berth runs on a swarm, each built from Debian packages on top of one debootstrap base
 * (image-builder.ts), never pulled from a registry. A recipe's tag is the hash of everything that makes
 * it (packages, files, steps, the base), so a changed recipe is a new image and an unchanged one is
 * built once per host.
 *
 * Service users have fixed ids in every image, so Docker secrets can be handed to exactly that user
 * (mode 0400) without looking inside the image.
 */

export interface ImageRecipe {
  /** Repository name, `berth/<name>`. */
  name: string;
  /** Debian packages (installed with --no-install-recommends). */
  packages: string[];
  /** System users made before the packages (which then keep these ids). */
  users: { name: string; uid: number; home: string }[];
  /** Files of image-files/<name>/ (`from`), or made here (`content`) → where they go in the image (mode). */
  files: ({ from: string; to: string; mode: number } | { content: string; to: string; mode: number })[];
  /** Shell run in the image after the packages and files (as root, in its chroot). */
  steps: string;
}

export const SERVICE_UIDS = { mysql: 999, postgres: 998, caddy: 997, n8n: 1000, 'www-data': 33 } as const;

const FILES_DIR = new URL('./image-files/', import.meta.url).pathname;

/** What customer code may do inside a site's container (apps/php-rules.ts, as on one box). */
const PHP_INI = [
  "; Berth: what customer code may do inside the site's container.",
  ...Object.entries({
    ...CUSTOMER_PHP_RULES,
    upload_max_filesize: '64M',
    post_max_size: '64M',
    memory_limit: '256M',
    expose_php: 'Off',
    'session.save_path': '/tmp/sessions',
  }).map(([name, value]) => `${name} = ${value}`),
  '',
].join('\n');

export const RECIPES = {
  mariadb: {
    name: 'mariadb',
    packages: ['mariadb-server'],
    users: [{ name: 'mysql', uid: SERVICE_UIDS.mysql, home: '/nonexistent' }],
    files: [{ from: 'berth-mariadb', to: '/usr/local/bin/berth-mariadb', mode: 0o755 }],
    // A fresh data folder made at build time (the package's own goes): a new instance's volume starts as
    // a copy of it, so its first start skips mariadb-install-db.
    steps: `rm -rf /var/lib/mysql && install -d -o mysql -g mysql -m 700 /var/lib/mysql
# The socket's folder is a tmpfs at run time (read-only root), which takes this folder's mode.
install -d -m 1777 /run/mysqld
mariadb-install-db --no-defaults --force --user=mysql --datadir=/var/lib/mysql --auth-root-authentication-method=socket --skip-test-db >/dev/null`,
  },
  postgres: {
    name: 'postgres',
    packages: ['postgresql-15'],
    users: [{ name: 'postgres', uid: SERVICE_UIDS.postgres, home: '/var/lib/postgresql' }],
    files: [{ from: 'berth-postgres', to: '/usr/local/bin/berth-postgres', mode: 0o755 }],
    // A fresh cluster made at build time: a new instance's volume is a copy of it (no initdb at start).
    steps: `rm -rf /var/lib/postgresql/15 /etc/postgresql/15/main
install -d -o postgres -g postgres -m 700 /var/lib/postgresql/data
install -d -m 1777 /run/postgresql
su -s /bin/sh postgres -c '/usr/lib/postgresql/15/bin/initdb -D /var/lib/postgresql/data -U postgres -E UTF8 --no-locale --auth-local=peer --auth-host=scram-sha-256 >/dev/null'
printf 'host all all 0.0.0.0/0 scram-sha-256\\nhost all all ::/0 scram-sha-256\\n' >>/var/lib/postgresql/data/pg_hba.conf`,
  },
  wordpress: {
    name: 'wordpress',
    packages: [
      'wordpress',
      'wordpress-theme-twentytwentythree',
      'apache2',
      'libapache2-mod-php8.2',
      'php8.2-cli',
      'php8.2-mysql',
      'php8.2-gd',
      'php8.2-xml',
      'php8.2-mbstring',
      'php8.2-zip',
      'php8.2-intl',
      'php8.2-curl',
      // SFTP sessions (site-sftp.ts) run its sftp-server in a helper container.
      'openssh-sftp-server',
    ],
    users: [],
    files: [
      { from: 'berth-wordpress', to: '/usr/local/bin/berth-wordpress', mode: 0o755 },
      { from: 'wp-db-ready.php', to: '/usr/local/lib/berth/wp-db-ready.php', mode: 0o644 },
      { from: 'wp-setup.php', to: '/usr/local/lib/berth/wp-setup.php', mode: 0o644 },
      { from: 'health.php', to: '/usr/local/lib/berth/health.php', mode: 0o644 },
      { from: 'wp-config.php', to: '/usr/local/lib/berth/wp-config.php', mode: 0o644 },
      { from: 'berth-site.conf', to: '/etc/apache2/sites-available/berth.conf', mode: 0o644 },
      // The same rules for Apache's PHP and for every CLI run (the installer, WP-Cron).
      { content: PHP_INI, to: '/etc/php/8.2/apache2/conf.d/90-berth.ini', mode: 0o644 },
      { content: PHP_INI, to: '/etc/php/8.2/cli/conf.d/90-berth.ini', mode: 0o644 },
    ],
    // WordPress core as real files (Debian's copy links into /etc and /var/lib), read-only to the site;
    // wp-content (themes, plugins, uploads) is the site's volume, seeded from this copy on first start.
    steps: `cp -rL /usr/share/wordpress /var/www/wordpress
rm -f /var/www/wordpress/wp-config.php
cp /usr/local/lib/berth/wp-config.php /var/www/wordpress/wp-config.php
chown -R www-data:www-data /var/www/wordpress/wp-content
a2dissite 000-default >/dev/null
a2ensite berth >/dev/null
a2enmod rewrite >/dev/null
: >/etc/apache2/ports.conf
a2disconf other-vhosts-access-log >/dev/null`,
  },
  caddy: {
    name: 'caddy',
    packages: ['caddy'],
    users: [{ name: 'caddy', uid: SERVICE_UIDS.caddy, home: '/var/lib/caddy' }],
    files: [
      { from: 'berth-caddy', to: '/usr/local/bin/berth-caddy', mode: 0o755 },
      { from: 'empty.json', to: '/etc/caddy/empty.json', mode: 0o644 },
    ],
    steps: 'install -d -o caddy -g caddy -m 700 /data',
  },
  // Berth's hands on each node (node-agent.ts): a shell and nsenter; the node's own tools do the rest.
  agent: {
    name: 'agent',
    packages: ['util-linux'],
    users: [],
    files: [{ from: 'berth-agent', to: '/usr/local/bin/berth-agent', mode: 0o755 }],
    steps: '',
  },
  n8n: {
    name: 'n8n',
    packages: ['ca-certificates'],
    users: [{ name: 'n8n', uid: SERVICE_UIDS.n8n, home: '/data' }],
    files: [{ from: 'berth-n8n', to: '/usr/local/bin/berth-n8n', mode: 0o755 }],
    steps: 'install -d -o n8n -g n8n -m 700 /data /opt/n8n /opt/node',
  },
} as const satisfies Record<string, ImageRecipe>;

export type ImageName = keyof typeof RECIPES;

export const filePath = (recipe: ImageRecipe, from: string) => path.join(FILES_DIR, recipe.name, from);

/** The tag of a recipe built on `baseId` (the base's own hash). */
function recipeTag(recipe: ImageRecipe, baseId: string): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ ...recipe, baseId }));
  for (const file of recipe.files) if ('from' in file) hash.update(readFileSync(filePath(recipe, file.from)));
  return hash.digest('hex').slice(0, 12);
}

/** `berth/<name>:<tag>`: the reference services name. */
export const imageRef = (recipe: ImageRecipe, baseId: string) =>
  `berth/${recipe.name}:${recipeTag(recipe, baseId)}`;
