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
 *
 * Anonymous visitors must not be able to fill the site's disk through it (issue 28: WordPress answers
 * 200 for endless variants of a page, `/post/comment-page-N/`, `/post/N/`, `/Post/`…). So:
 * - only a page's canonical address is cached: the one WordPress itself gives the page (its permalink,
 *   with the page, comment page or archive page number when they exist), on the site's own host, asked
 *   for exactly (after percent-decoding, which the front door does too): every variant is rendered by
 *   PHP each time and written nowhere. The set of cacheable addresses is what the site's content makes
 *   (its posts, terms, authors, dates and approved comments), not what visitors type;
 * - a site's cache holds at most PAGE_CACHE_LIMITS pages and bytes (counted in `berth.usage` under a
 *   lock; a full cache writes nothing new until the sweep or a purge makes room);
 * - the driver's sweep (site-files.ts) removes stale pages, their emptied folders and the count (the
 *   plugin recounts the files at its next write).
 */

/**
 * Pages older than this are removed by the driver's upkeep (every few minutes), so a change WordPress
 * never hears of (an edit straight in the database) shows within about 15 minutes.
 */
export const MAX_AGE_MINUTES = 10;

export interface PageCacheLimits {
  /** Most pages (files) a site's cache holds. */
  maxPages: number;
  /** Most bytes the pages of a site's cache take together. */
  maxBytes: number;
}

/**
 * Every site's cache limits: 2,000 pages and 50 MiB (5 % of the default 1 GiB disk), far above what a
 * blog's anonymous traffic renders within the 10 minutes a page lives.
 */
export const PAGE_CACHE_LIMITS: PageCacheLimits = { maxPages: 2000, maxBytes: 50 * 1024 * 1024 };

/** Where the cache lives in public/ (also what backups leave out). */
export const CACHE_PATH = 'wp-content/cache/berth';
/** The plugin's count of the cache's pages and bytes, in public/ (removed: recounted). */
export const CACHE_USAGE_PATH = 'wp-content/cache/berth.usage';
/** The plugin file, in public/. */
export const PLUGIN_PATH = 'wp-content/mu-plugins/berth-page-cache.php';

/** Cookies of visitors who must see PHP's answer (logged in, post password, commenter, cart). */
const BYPASS_COOKIES =
  '(wordpress_logged_in_|wp-postpass_|comment_author_|woocommerce_|wp_woocommerce_session_)';

/** The must-use plugin with `limits` (PAGE_CACHE_LIMITS on every deploy). */
export function pageCachePlugin(limits: PageCacheLimits = PAGE_CACHE_LIMITS): string {
  const { maxPages, maxBytes } = limits;
  if (!Number.isSafeInteger(maxPages) || !Number.isSafeInteger(maxBytes)) throw new Error('bad cache limits');
  return `<?php
/*
 * Plugin Name: Berth page cache
 * Description: Anonymous pages are kept as static files that the front door serves; any change to
 * content, comments or settings clears them. Installed by Berth on each deploy (deleting it turns the
 * cache off until then).
 */
if (!defined('ABSPATH')) { exit; }

const BERTH_CACHE_DIR = WP_CONTENT_DIR . '/cache/berth';
const BERTH_CACHE_GENERATION = WP_CONTENT_DIR . '/cache/berth.generation';
const BERTH_CACHE_USAGE = WP_CONTENT_DIR . '/cache/berth.usage';
const BERTH_CACHE_MAX_PAGES = ${maxPages};
const BERTH_CACHE_MAX_BYTES = ${maxBytes};

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
  if (is_dir(BERTH_CACHE_DIR)) {
    $trash = WP_CONTENT_DIR . '/cache/.berth-trash-' . bin2hex(random_bytes(6));
    if (@rename(BERTH_CACHE_DIR, $trash)) { berth_cache_remove($trash); }
  }
  @unlink(BERTH_CACHE_USAGE);
}

/** The cache's pages and bytes as its files say (every file counts, half-written ones too). */
function berth_cache_count() {
  $usage = ['pages' => 0, 'bytes' => 0];
  if (!is_dir(BERTH_CACHE_DIR)) { return $usage; }
  $files = new RecursiveIteratorIterator(new RecursiveDirectoryIterator(BERTH_CACHE_DIR, FilesystemIterator::SKIP_DOTS));
  foreach ($files as $file) {
    if ($file->isFile()) { $usage['pages'] += 1; $usage['bytes'] += $file->getSize(); }
  }
  return $usage;
}

/**
 * Reserves room for a page of $bytes (replacing one of $replaced bytes, or a new one when null) under
 * the usage file's lock: false when the site's cache would pass its limits. A page then not written
 * leaves its reservation counted until the next recount (never too little).
 */
function berth_cache_admit($bytes, $replaced) {
  if (!is_dir(dirname(BERTH_CACHE_USAGE))) { @mkdir(dirname(BERTH_CACHE_USAGE), 0755, true); }
  $handle = @fopen(BERTH_CACHE_USAGE, 'c+');
  if ($handle === false) { return false; }
  try {
    if (!flock($handle, LOCK_EX)) { return false; }
    $usage = json_decode((string) stream_get_contents($handle), true);
    if (!is_array($usage) || !is_int($usage['pages'] ?? null) || !is_int($usage['bytes'] ?? null)) { $usage = berth_cache_count(); }
    $pages = $usage['pages'] + ($replaced === null ? 1 : 0);
    $total = $usage['bytes'] + $bytes - ($replaced ?? 0);
    if ($pages > BERTH_CACHE_MAX_PAGES || $total > BERTH_CACHE_MAX_BYTES) { return false; }
    ftruncate($handle, 0);
    rewind($handle);
    fwrite($handle, json_encode(['pages' => $pages, 'bytes' => $total]));
    fflush($handle);
    return true;
  } finally {
    fclose($handle);
  }
}

/**
 * The address WordPress itself gives the page being rendered (what its rel=canonical link and
 * redirect_canonical aim at), or null for a page the cache does not keep: page and comment page
 * numbers only when the post has them, archive pages only up to the last, nothing beyond.
 */
function berth_cache_canonical() {
  global $wp_query, $wp_rewrite;
  $paged = max(1, (int) get_query_var('paged'));
  if ($paged > max(1, (int) $wp_query->max_num_pages)) { return null; }
  if (is_singular()) {
    $post = get_queried_object();
    if ($paged > 1 || !($post instanceof WP_Post)) { return null; }
    if ((int) get_query_var('page') > substr_count($post->post_content, '<!--nextpage-->') + 1) { return null; }
    // Comments are not loaded yet: their pages counted from the approved comments (threads make fewer).
    $cpage = (int) get_query_var('cpage');
    $per_page = max(1, (int) get_option('comments_per_page'));
    if ($cpage > 0 && (!get_option('page_comments') || $cpage > (int) ceil(get_comments_number($post) / $per_page))) { return null; }
    $url = wp_get_canonical_url($post);
    return is_string($url) && $url !== '' ? $url : null;
  }
  if (is_front_page()) { $url = home_url('/'); }
  elseif (is_home()) { $url = get_permalink((int) get_option('page_for_posts')); }
  elseif (is_category() || is_tag() || is_tax()) { $url = get_term_link(get_queried_object()); }
  elseif (is_author()) { $url = get_author_posts_url(get_queried_object_id()); }
  elseif (is_post_type_archive()) { $type = get_queried_object(); $url = isset($type->name) ? get_post_type_archive_link($type->name) : false; }
  elseif (is_day()) { $url = get_day_link(get_query_var('year'), get_query_var('monthnum'), get_query_var('day')); }
  elseif (is_month()) { $url = get_month_link(get_query_var('year'), get_query_var('monthnum')); }
  elseif (is_year()) { $url = get_year_link(get_query_var('year')); }
  else { return null; }
  if (!is_string($url) || $url === '') { return null; }
  if ($paged > 1) { $url = trailingslashit($url) . user_trailingslashit($wp_rewrite->pagination_base . '/' . $paged, 'paged'); }
  return $url;
}

/**
 * Where the page asked for would be cached (the file's folder, below BERTH_CACHE_DIR), or null unless it
 * was asked for at its canonical address: on the site's own host, the same path once percent-decoded
 * (the front door looks files up by the decoded path), no query string.
 */
function berth_cache_key() {
  $canonical = berth_cache_canonical();
  if ($canonical === null || parse_url($canonical, PHP_URL_QUERY) !== null) { return null; }
  $home = strtolower((string) parse_url(home_url('/'), PHP_URL_HOST));
  $host = preg_replace('/:\\d+$/', '', (string) ($_SERVER['HTTP_HOST'] ?? ''));
  if ($host !== $home || strtolower((string) parse_url($canonical, PHP_URL_HOST)) !== $home) { return null; }
  $path = rawurldecode((string) parse_url((string) ($_SERVER['REQUEST_URI'] ?? ''), PHP_URL_PATH));
  if ($path !== rawurldecode((string) parse_url($canonical, PHP_URL_PATH))) { return null; }
  if (!preg_match('/^[a-z0-9.-]{1,253}$/', $host) || strpos($path, '..') !== false || !preg_match('#^/[^\\x00-\\x20\\x7f\\x5c%?]{0,400}$#uD', $path)) { return null; }
  return $host . rtrim($path, '/');
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
  // Transients, cron and similar bookkeeping change all the time and show nothing to visitors (WP-Cron's
  // HTTPS and Site Health checks among them, twice a day and weekly; and the term hierarchy WordPress
  // stores as <taxonomy>_children when an archive is first shown).
  if (!preg_match('/^(_site_transient_|_transient_|cron$|doing_cron$|rewrite_rules$|recently_edited$|auto_updater|recovery_|https_detection_errors$|health-check-site-status-result$|[a-z0-9_-]+_children$)/', (string) $name)) {
    berth_cache_purge();
  }
};
add_action('added_option', $berth_option_changed);
add_action('updated_option', $berth_option_changed);
add_action('deleted_option', $berth_option_changed);

// After redirect_canonical (same priority, added earlier): a page it redirects never gets here.
add_action('template_redirect', function () {
  if (($_SERVER['REQUEST_METHOD'] ?? '') !== 'GET' || ($_SERVER['QUERY_STRING'] ?? '') !== '') { return; }
  if (is_user_logged_in() || is_admin() || is_preview() || is_feed() || is_search() || is_404() || is_trackback()) { return; }
  if (defined('DONOTCACHEPAGE') || (defined('REST_REQUEST') && REST_REQUEST)) { return; }
  foreach (array_keys($_COOKIE) as $cookie) {
    if (preg_match('/^${BYPASS_COOKIES}/', (string) $cookie)) { return; }
  }
  $key = berth_cache_key();
  if ($key === null) { return; }
  $generation = berth_cache_generation();
  header('X-Berth-Cache: MISS');
  ob_start(function ($html) use ($generation, $key) {
    if (http_response_code() !== 200 || defined('DONOTCACHEPAGE') || stripos($html, '</html>') === false) { return $html; }
    foreach (headers_list() as $header) {
      if (stripos($header, 'set-cookie:') === 0) { return $html; }
    }
    if (berth_cache_generation() !== $generation) { return $html; }
    $dir = BERTH_CACHE_DIR . '/' . $key;
    $file = $dir . '/index.html';
    $replaced = is_file($file) ? filesize($file) : null;
    if (!berth_cache_admit(strlen($html), $replaced === false ? null : $replaced)) { return $html; }
    if (!is_dir($dir) && !@mkdir($dir, 0755, true)) { return $html; }
    $temporary = $dir . '/.index.html.' . bin2hex(random_bytes(6));
    if (@file_put_contents($temporary, $html) !== false) {
      @chmod($temporary, 0644);
      if (berth_cache_generation() === $generation) { @rename($temporary, $file); } else { @unlink($temporary); }
    }
    return $html;
  });
});
`;
}

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
