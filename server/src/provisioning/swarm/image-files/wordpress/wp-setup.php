<?php
// Installs WordPress on the first start (title, admin and e-mail from the environment, the admin password
// from its Docker secret), and on every start points home/siteurl at BERTH_SITE_URL, rewriting links to
// the previous address in post content (a custom domain attached or removed).
$url = getenv('BERTH_SITE_URL');
$u = parse_url($url);
$_SERVER['HTTP_HOST'] = $u['host'] . (isset($u['port']) ? ':' . $u['port'] : '');
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
if (($u['scheme'] ?? 'http') === 'https') { $_SERVER['HTTPS'] = 'on'; }
define('WP_INSTALLING', true);
// Pluggable: no install e-mail (there is no MTA).
function wp_new_blog_notification($blog_title, $blog_url, $user_id, $password) {}
require '/var/www/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
if (!is_blog_installed()) {
  $password = rtrim((string) file_get_contents('/run/secrets/admin_password'), "\n");
  // One commit for the install's few hundred rows instead of one flush each (its table creations
  // still commit on their own): seconds less on a busy disk.
  global $wpdb;
  $wpdb->query('SET SESSION autocommit = 0');
  wp_install(getenv('BERTH_SITE_TITLE'), getenv('BERTH_ADMIN_USER'), getenv('BERTH_ADMIN_EMAIL'), true, '', wp_slash($password));
  update_option('permalink_structure', '/%postname%/');
  update_option('siteurl', $url);
  update_option('home', $url);
  $wpdb->query('COMMIT');
  echo "WordPress installed at $url\n";
  exit(0);
}
$previous = get_option('home');
if ($previous !== $url) {
  global $wpdb;
  $wpdb->query($wpdb->prepare("UPDATE {$wpdb->options} SET option_value = %s WHERE option_name IN ('home', 'siteurl')", $url));
  $wpdb->query($wpdb->prepare("UPDATE {$wpdb->posts} SET post_content = REPLACE(post_content, %s, %s)", $previous, $url));
  echo "WordPress moved from $previous to $url\n";
}
