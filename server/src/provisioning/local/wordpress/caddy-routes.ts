import {
  type SharedHandler,
  type SiteHandler,
  UPSTREAM_VAR,
  upstreamOfSite,
} from '../../front-door/caddy-config.ts';
import { pageCacheRoute } from './page-cache.ts';
import { INSIDE } from './site-sandbox.ts';

/** What the front door does with a WordPress site's requests (its handler in the Caddy config). */

/**
 * Paths under wp-content/uploads that would run as PHP (any depth, any case, the extensions php-fpm or a
 * browser could treat as PHP): refused with 403, checked on the path as requested and again on the file
 * the request was rewritten to (the path actually handed to PHP or served).
 */
const UPLOADS_CODE = '(?i)^/+wp-content/+uploads/.*\\.(php[0-9]*|phar|phtml|pht|phps)(/.*)?$';

/** Paths the driver uses inside public/ while it works (restore): never served. */
const WORK_PATHS = '^/+\\.berth-';

const refused = (status: number) => [{ handler: 'static_response', status_code: status }];

/**
 * What `caddy adapt` emits for `root * <dir>` + `php_fastcgi unix/<socket>` + `file_server`, plus the
 * uploads rule, shared by every site: its route sets `root` (its folder) and its socket. Static files
 * are read from the site disk (mounted nosymfollow: a link there is never followed, so no file outside
 * the site is ever served); PHP gets paths as its sandbox sees them (the same for every site).
 */
const WORDPRESS: SharedHandler = {
  name: 'wordpress',
  handler: {
    handler: 'subroute',
    routes: [
      { match: [{ path_regexp: { name: 'uploads', pattern: UPLOADS_CODE } }], handle: refused(403) },
      { match: [{ path_regexp: { name: 'work', pattern: WORK_PATHS } }], handle: refused(404) },
      // Anonymous pages WordPress has already rendered: a static file, no PHP (page-cache.ts).
      pageCacheRoute(),
      {
        match: [{ file: { try_files: ['{http.request.uri.path}/index.php'] }, not: [{ path: ['*/'] }] }],
        handle: [
          {
            handler: 'static_response',
            headers: { Location: ['{http.request.orig_uri.path}/'] },
            status_code: 308,
          },
        ],
      },
      {
        match: [
          {
            file: {
              split_path: ['.php'],
              try_files: ['{http.request.uri.path}', '{http.request.uri.path}/index.php', 'index.php'],
            },
          },
        ],
        handle: [{ handler: 'rewrite', uri: '{http.matchers.file.relative}' }],
      },
      // The same rule on the rewritten path: what PHP would run or the file server would send.
      { match: [{ path_regexp: { name: 'uploads2', pattern: UPLOADS_CODE } }], handle: refused(403) },
      {
        match: [{ path: ['*.php'] }],
        handle: [
          {
            handler: 'reverse_proxy',
            transport: { protocol: 'fastcgi', split_path: ['.php'], root: INSIDE.public },
            upstreams: upstreamOfSite(),
          },
        ],
      },
      { handle: [{ handler: 'file_server', hide: ['wp-config.php', '.user.ini', '.htaccess'] }] },
    ],
  },
};

/** What the front door does with a WordPress site's requests. */
export function wordpressHandler(site: {
  /** WordPress' directory on the host (Caddy's root for static files). */
  publicDir: string;
  /** The site's php-fpm socket on the host. */
  phpSocket: string;
}): SiteHandler {
  return { shared: WORDPRESS, vars: { root: site.publicDir, [UPSTREAM_VAR]: `unix/${site.phpSocket}` } };
}
