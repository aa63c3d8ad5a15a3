/**
 * What customer PHP may do, on every driver: the functions it never gets and the settings that go with
 * them, for the web server's PHP and for every PHP CLI run of the site's code (its installer, WP-Cron)
 * alike. The local driver writes them into each site's php-fpm pool and CLI runs (local/wordpress/
 * php-fpm.ts), the swarm driver into its image's PHP configuration for Apache and the CLI
 * (swarm/image-recipes.ts).
 */

/**
 * Functions customer PHP never gets: running programs (the sandbox has nothing worth running, but no
 * program runs at all), changing the environment of a later program (putenv + mail was the classic
 * open_basedir escape), mail (no MTA; WordPress reports the failure), loading extensions, and every
 * posix_* function but the name and id lookups WordPress uses (POSIX_KEPT).
 */
export const DISABLED_FUNCTIONS = [
  'exec',
  'passthru',
  'shell_exec',
  'system',
  'proc_open',
  'popen',
  'pcntl_exec',
  'pcntl_fork',
  'putenv',
  'mail',
  'mb_send_mail',
  'dl',
  // Making FIFOs and device nodes (a FIFO served by the front door blocks it: issue 28; the sandbox's
  // seccomp filter refuses them too).
  'posix_mkfifo',
  'posix_mknod',
  // Changing process or user state: signals, ids, groups, sessions, process groups, limits.
  'posix_kill',
  'posix_setuid',
  'posix_setgid',
  'posix_seteuid',
  'posix_setegid',
  'posix_initgroups',
  'posix_setsid',
  'posix_setpgid',
  'posix_setrlimit',
  // Revealing process, session and terminal state (the kernel's version too; probing for processes).
  'posix_getpgid',
  'posix_getsid',
  'posix_getpgrp',
  'posix_getppid',
  'posix_getgroups',
  'posix_getlogin',
  'posix_getrlimit',
  'posix_times',
  'posix_uname',
  'posix_ctermid',
  'posix_ttyname',
  'posix_isatty',
];

/**
 * The posix_* functions PHP 8.2 has that stay: looking up the site's own user and group (WordPress' file
 * owner display), its own ids and pid, the working directory, access checks and error texts.
 */
export const POSIX_KEPT = [
  'posix_getpwuid',
  'posix_getpwnam',
  'posix_getgrgid',
  'posix_getgrnam',
  'posix_getuid',
  'posix_geteuid',
  'posix_getgid',
  'posix_getegid',
  'posix_getpid',
  'posix_getcwd',
  'posix_access',
  'posix_get_last_error',
  'posix_errno',
  'posix_strerror',
];

/** The settings that hold those rules (and keep FFI and remote includes off). */
export const CUSTOMER_PHP_RULES = {
  disable_functions: DISABLED_FUNCTIONS.join(','),
  allow_url_include: 'Off',
  // PHP's FFI calls any C function (execve included): customer code run by the CLI (WP-Cron) would
  // have it with Debian's default (`preload`: on in the CLI).
  'ffi.enable': '0',
} as const;
