<?php
// Berth's swarm image: the site's settings come from its service (environment) and its Docker secrets
// (files under /run/secrets, readable by www-data only), never from this file.
$berth_secret = function ($name) { return rtrim((string) @file_get_contents('/run/secrets/' . $name), "\n"); };
define('DB_NAME', 'wordpress');
define('DB_USER', 'wordpress');
define('DB_PASSWORD', $berth_secret('db_password'));
define('DB_HOST', getenv('BERTH_DB_HOST'));
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
$berth_salts = json_decode($berth_secret('salts'), true) ?: [];
foreach (['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'] as $berth_name) {
  define($berth_name, $berth_salts[$berth_name] ?? '');
}
$table_prefix = 'wp_';
define('FS_METHOD', 'direct');
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_AUTO_UPDATE_CORE', false);
// The site's network has no way out: no update checks that would stall wp-admin.
define('WP_HTTP_BLOCK_EXTERNAL', true);
// WP-Cron runs from the entrypoint every minute (its loopback request cannot reach the front door).
define('DISABLE_WP_CRON', true);
// Behind the region's front door, which terminates TLS.
if (($_SERVER['HTTP_X_FORWARDED_PROTO'] ?? '') === 'https') { $_SERVER['HTTPS'] = 'on'; }
// The temporary address keeps serving the site once a custom domain is attached.
$berth_temporary = getenv('BERTH_TEMPORARY_URL');
if ($berth_temporary && $berth_temporary !== getenv('BERTH_SITE_URL')) {
  $berth_t = parse_url($berth_temporary);
  if (($_SERVER['HTTP_HOST'] ?? '') === $berth_t['host'] . (isset($berth_t['port']) ? ':' . $berth_t['port'] : '')) {
    define('WP_HOME', $berth_temporary);
    define('WP_SITEURL', $berth_temporary);
  }
}
// The site's network has no way out: WordPress' HTTP requests (its install's and site health's loopback
// tests among them) fail at once instead of waiting for a name lookup that cannot be answered.
$GLOBALS['wp_filter']['pre_http_request'][10][] = [
  'function' => function () { return new WP_Error('http_request_not_executed', 'This site has no outbound network.'); },
  'accepted_args' => 0,
];
if (!defined('ABSPATH')) { define('ABSPATH', __DIR__ . '/'); }
require_once ABSPATH . 'wp-settings.php';
