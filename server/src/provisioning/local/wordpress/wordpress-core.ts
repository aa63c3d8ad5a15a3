import { cp } from 'node:fs/promises';

/** Debian's WordPress; copied per site minus its /etc dispatcher config and translations. */
const WORDPRESS_CORE = '/usr/share/wordpress';
const NOT_COPIED = new Set(
  ['wp-config.php', '.htaccess', 'wp-content/languages'].map((file) => `${WORDPRESS_CORE}/${file}`),
);

/**
 * Copies WordPress core into `dest` (which must not exist) as real files: Debian's package links into
 * /usr/share/php, /usr/share/javascript and /etc/ssl/certs, and a copied link would point a customer's
 * file at the host's (and is useless in the site's sandbox, and never followed on a site disk).
 */
export async function copyWordPressCore(dest: string): Promise<void> {
  await cp(WORDPRESS_CORE, dest, {
    recursive: true,
    dereference: true,
    filter: (source) => !NOT_COPIED.has(source),
  });
}
