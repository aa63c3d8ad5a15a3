/**
 * The WordPress page cache: a must-use plugin writes each anonymous page WordPress renders as a static
 * file on the site's own disk (`wp-content/cache/berth/<host><path>/index.html`), and the front door
 * serves that file to the next anonymous visitor without starting PHP. Any change to content, comments,
 * menus, terms, themes, plugins or settings clears the whole site's cache, so an edit shows at once.
 *
 * Never cached, never served from the cache: requests other than GET/HEAD, any query string (previews,
 * searches), visitors with a WordPress login, post-password, commenter or shop cookie (carts), pages
 * other than 200, feeds, admin, REST and login pages, responses setting cookies, pages marked
 * DONOTCACHEPAGE. The plugin runs as the site's PHP (in its sandbox, on its disk): a customer can change
 * or delete it like any file of theirs, and the cache can only ever hold their own site's pages.
 */

/**
 * Pages older than this are removed by the driver's upkeep (every few minutes), so a change WordPress
 * never hears of (an edit straight in the database) shows within about 15 minutes.
 */
export const MAX_AGE_MINUTES = 10;

/** Where the cache lives in public/ (also what backups leave out). */
export const CACHE_PATH = 'wp-content/cache/berth';
/** The plugin file, in public/. */
export const PLUGIN_PATH = 'wp-content/mu-plugins/berth-page-cache.php';

/** Cookies of visitors who must see PHP's answer (logged in, post password, commenter, cart). */
const BYPASS_COOKIES =
  '(wordpress_logged_in_|wp-postpass_|comment_author_|woocommerce_|wp_woocommerce_session_)';

export const PAGE_CACHE_PLUGIN = `<?php
/*
 * Plugin Name: Berth page cache
 * Description: Anonymous pages are kept as static files that the front door serves; any change to
 * content, comments or settings clears them. Installed by Berth on each deploy (deleting it turns the
 * cache off until then).
 */
if (!defined('ABSPATH')) { exit; }

const BERTH_CACHE_DIR = WP_CONTENT_DIR . '/cache/berth';
const BERTH_CACHE_GENERATION = WP_CONTENT_DIR . '/cache/berth.generation';

function berth_cache_generation() {
  $generation = @file_get_contents(BERTH_CACHE_GENERATION);
  return $generation === false ? '' : $generation;
}

function berth_cache_remove($dir) {
  foreach (@scandir($dir) ?: [] as $entry) {
    if ($entry === '.' || $entry === '..') { continue; }
    $path = $dir . '/' . $entry;
    if (is_dir($path) && !is_link($path)) { berth_cache_remove($path); } else { @unlink($path); }
  }
  @rmdir($dir);
}

/** Clears the cache: a new generation first (pages being rendered now are not written), then the files. */
function berth_cache_purge() {
  static $purged = false;
  if ($purged) { return; }
  $purged = true;
  if (!is_dir(WP_CONTENT_DIR . '/cache')) { @mkdir(WP_CONTENT_DIR . '/cache', 0755, true); }
  @file_put_contents(BERTH_CACHE_GENERATION, bin2hex(random_bytes(8)));
  if (!is_dir(BERTH_CACHE_DIR)) { return; }
  $trash = WP_CONTENT_DIR . '/cache/.berth-trash-' . bin2hex(random_bytes(6));
  if (@rename(BERTH_CACHE_DIR, $trash)) { berth_cache_remove($trash); }
}

foreach ([
  'save_post', 'deleted_post', 'trashed_post', 'untrashed_post', 'comment_post', 'edit_comment',
  'wp_set_comment_status', 'deleted_comment', 'switch_theme', 'activated_plugin', 'deactivated_plugin',
  'customize_save_after', 'wp_update_nav_menu', 'created_term', 'edited_term', 'delete_term',
  'profile_update', 'upgrader_process_complete',
] as $hook) {
  add_action($hook, 'berth_cache_purge');
}
$berth_option_changed = function ($name) {
  // Transients, cron and similar bookkeeping change all the time and show nothing to visitors.
  if (!preg_match('/^(_site_transient_|_transient_|cron$|doing_cron$|rewrite_rules$|recently_edited$|auto_updater|recovery_)/', (string) $name)) {
    berth_cache_purge();
  }
};
add_action('added_option', $berth_option_changed);
add_action('updated_option', $berth_option_changed);
add_action('deleted_option', $berth_option_changed);

add_action('template_redirect', function () {
  if (($_SERVER['REQUEST_METHOD'] ?? '') !== 'GET' || ($_SERVER['QUERY_STRING'] ?? '') !== '') { return; }
  if (is_user_logged_in() || is_admin() || is_preview() || is_feed() || is_search() || is_404() || is_trackback()) { return; }
  if (defined('DONOTCACHEPAGE') || (defined('REST_REQUEST') && REST_REQUEST)) { return; }
  foreach (array_keys($_COOKIE) as $cookie) {
    if (preg_match('/^${BYPASS_COOKIES}/', (string) $cookie)) { return; }
  }
  $generation = berth_cache_generation();
  header('X-Berth-Cache: MISS');
  ob_start(function ($html) use ($generation) {
    if (http_response_code() !== 200 || defined('DONOTCACHEPAGE') || stripos($html, '</html>') === false) { return $html; }
    foreach (headers_list() as $header) {
      if (stripos($header, 'set-cookie:') === 0) { return $html; }
    }
    if (berth_cache_generation() !== $generation) { return $html; }
    $host = strtolower(preg_replace('/:\\d+$/', '', (string) ($_SERVER['HTTP_HOST'] ?? '')));
    $path = (string) (parse_url((string) ($_SERVER['REQUEST_URI'] ?? '/'), PHP_URL_PATH) ?: '/');
    if (!preg_match('/^[a-z0-9.-]{1,253}$/', $host) || strpos($path, '..') !== false || !preg_match('#^/[A-Za-z0-9/_.%~-]{0,400}$#', $path)) { return $html; }
    $dir = BERTH_CACHE_DIR . '/' . $host . rtrim($path, '/');
    if (!is_dir($dir) && !@mkdir($dir, 0755, true)) { return $html; }
    $temporary = $dir . '/.index.html.' . bin2hex(random_bytes(6));
    if (@file_put_contents($temporary, $html) !== false) {
      @chmod($temporary, 0644);
      if (berth_cache_generation() === $generation) { @rename($temporary, $dir . '/index.html'); } else { @unlink($temporary); }
    }
    return $html;
  });
});
`;

/**
 * The front door's route serving a cached page: GET/HEAD without a query string, without a bypass
 * cookie, when the page's file exists on the site's disk. Marked `X-Berth-Cache: HIT`; browsers
 * revalidate (no-cache), so an edit shows at once for them too.
 */
export function pageCacheRoute(): Record<string, unknown> {
  return {
    match: [
      {
        method: ['GET', 'HEAD'],
        expression: "{http.request.uri.query} == ''",
        not: [{ header_regexp: { Cookie: { pattern: BYPASS_COOKIES } } }],
        file: { try_files: [`/${CACHE_PATH}/{http.request.host}{http.request.uri.path}/index.html`] },
      },
    ],
    handle: [
      { handler: 'headers', response: { set: { 'X-Berth-Cache': ['HIT'], 'Cache-Control': ['no-cache'] } } },
      { handler: 'rewrite', uri: '{http.matchers.file.relative}' },
      { handler: 'file_server' },
    ],
  };
}
