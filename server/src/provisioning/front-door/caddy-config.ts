/**
 * The whole Caddy configuration, built from the driver's state: Caddy is loaded with it at start and
 * after every change (POST /load), never patched piecemeal, so what runs is always what the state says.
 * (Caddy provisions the whole configuration at any change, a patch of one route as much as a load.)
 *
 * - server `http` on <listen>:<httpPort> (automatic HTTPS off): each site's temporary host
 *   `<slug>.<baseDomain>`; a custom domain's host redirects to HTTPS; anything else 404.
 * - server `https` on <listen>:<httpsPort>: custom domains, certificates issued by Caddy's internal CA
 *   (or ACME) through one automation policy naming exactly those domains; anything else 404.
 * - a suspended site answers 503 with the offline page on all its hosts.
 *
 * Each site's route only sets its variables (its folder, its socket); what answers is a handler its
 * kind shares with every site of that kind, once in the configuration (SharedHandler). Caddy
 * provisions every handler at every load: with a WordPress handler a site, a load of 500 sites took
 * 650 ms on the development machine, and every deploy waits for one; with the shared handler, 60 ms.
 */

/** What answers a site's requests: its kind's shared handler, and the variables it reads for this site. */
export interface SiteHandler {
  shared: SharedHandler;
  vars: Record<string, string>;
}

/** A handler the sites of one kind share, reading what differs between them from their variables. */
export interface SharedHandler {
  /** Unique among shared handlers: sites naming it get this handler (the same name, the same handler). */
  name: string;
  /** A Caddy handler reading the site's variables as `{http.vars.<name>}` (a `root` is Caddy's own). */
  handler: Json;
}

export interface CaddySite {
  id: string;
  /** Temporary host: `<slug>.<baseDomain>`. */
  temporaryHost: string;
  domain: string | null;
  suspended: boolean;
  /**
   * What answers on its hosts while it is not suspended, as its engine builds it: a WordPress site's
   * PHP and files (wordpress/caddy-routes.ts), an application's own HTTP server (proxyTo), given this
   * site's variables. The values are the platform's (paths, addresses), never a tenant's words.
   */
  handler: SiteHandler;
}

export type TlsIssuer = { issuer: 'internal' } | { issuer: 'acme'; email?: string; directoryUrl?: string };

export interface CaddySettings {
  /** `unix/<path>` or `127.0.0.1:<port>`. */
  adminListen: string;
  /**
   * Caddy's own log (JSON lines), in a folder Caddy's user writes: rolled at LOG_ROLL_MB. Absent: Caddy
   * logs to its standard error (a container's, which the container engine keeps).
   */
  logFile?: string;
  /**
   * The access log of every instance's hosts (JSON lines, one per response, the logger named by the
   * instance id), read by the usage sampler: a file rolled at ACCESS_LOG_ROLL_MB (the local driver's,
   * local/front-door/access-log.ts), or `stdout`, the container's (the swarm's, which the sampler reads
   * through the Engine API). Absent: no access log.
   */
  accessLog?: string;
  listenHost: string;
  httpPort: number;
  httpsPort: number;
  tls: TlsIssuer;
}

export type Json = Record<string, unknown>;

const OFFLINE_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Site offline</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:15vh auto;padding:0 1.5rem;color:#222}
h1{font-size:1.6rem}p{line-height:1.5}</style></head>
<body><h1>This site is temporarily offline</h1>
<p>The site has been suspended by its hosting provider. If you own it, sign in to your Berth account and
reactivate your subscription to bring it back online.</p></body></html>
`;

const hostMatch = (hosts: string[]) => [{ host: hosts }];

/**
 * Caddy's log is rolled by Caddy itself: a new file at LOG_ROLL_MB, the LOG_ROLL_KEEP newest rolled ones
 * kept (gzipped), none older than two weeks: at most about 60 MB whatever happens.
 */
const LOG_ROLL_MB = 10;
const LOG_ROLL_KEEP = 5;
/** The access log is read every 15 s and only counted: one rolled file is kept, at most about 40 MB. */
const ACCESS_LOG_ROLL_MB = 20;

/** The logger of an instance's access lines (Caddy prefixes its access loggers' names). */
export const ACCESS_LOGGER_PREFIX = 'http.log.access.';

/**
 * Each response's line holds what counting needs (instance, status, size, time), the method and the
 * host; the visitor's address, the path with its query, and the request and response headers are left
 * out (nothing reads them, and they are most of a line).
 */
const accessEncoder: Json = {
  format: 'filter',
  wrap: { format: 'json' },
  fields: Object.fromEntries(
    [
      'request>remote_ip',
      'request>remote_port',
      'request>uri',
      'request>headers',
      'request>tls',
      'resp_headers',
    ].map((field) => [field, { filter: 'delete' }]),
  ),
};

/**
 * The variable naming a site's shared handler. Every route's variables start empty, so a request that
 * no site's host matched has none, and falls through to 404.
 */
const HANDLER_VAR = 'berth_handler';
/** The variable holding the address a site's requests are passed to (`host:port`, `unix/<socket>`). */
export const UPSTREAM_VAR = 'berth_upstream';

/**
 * The address to pass a site's requests to, read from its UPSTREAM_VAR. Passive health checks stay
 * off (Caddy's default), so one site's failing upstream never marks this shared one down for others.
 */
export const upstreamOfSite = (): Json[] => [{ dial: `{http.vars.${UPSTREAM_VAR}}` }];

const PROXY: SharedHandler = {
  name: 'proxy',
  handler: {
    handler: 'reverse_proxy',
    upstreams: upstreamOfSite(),
    // Server-sent events and long polls are passed on at once.
    flush_interval: -1,
  },
};

/** An application with its own HTTP server (n8n): everything proxied, websockets (`/rest/push`) too. */
export function proxyTo(upstream: string): SiteHandler {
  return { shared: PROXY, vars: { [UPSTREAM_VAR]: upstream } };
}

const offlineHandler: Json = {
  handler: 'static_response',
  status_code: 503,
  headers: {
    'Content-Type': ['text/html; charset=utf-8'],
    'Cache-Control': ['no-store'],
    'Retry-After': ['3600'],
  },
  body: OFFLINE_PAGE,
};

const notFound: Json = {
  handle: [{ handler: 'static_response', status_code: 404, body: 'Not found\n' }],
};

/** Site routes are one group: only the first whose host matches runs (Caddy's `group`). */
const SITES_GROUP = 'sites';

export function buildCaddyConfig(settings: CaddySettings, sites: readonly CaddySite[]): Json {
  const httpsSuffix = settings.httpsPort === 443 ? '' : `:${settings.httpsPort}`;
  const sorted = [...sites].sort((a, b) => a.id.localeCompare(b.id));
  const siteRoute = (id: string, host: string, site: CaddySite): Json => ({
    '@id': id,
    group: SITES_GROUP,
    match: hostMatch([host]),
    ...(site.suspended
      ? { handle: [offlineHandler], terminal: true }
      : { handle: [{ handler: 'vars', ...site.handler.vars, [HANDLER_VAR]: site.handler.shared.name }] }),
  });
  const shared = new Map(
    sorted.flatMap((site) =>
      site.suspended ? [] : [[site.handler.shared.name, site.handler.shared.handler]],
    ),
  );
  const sharedRoutes = [...shared].map(([name, handler]) => ({
    match: [{ vars: { [HANDLER_VAR]: [name] } }],
    handle: [handler],
    terminal: true,
  }));
  const httpRoutes: Json[] = [];
  const httpsRoutes: Json[] = [];
  for (const site of sorted) {
    httpRoutes.push(siteRoute(`site-${site.id}`, site.temporaryHost, site));
    if (!site.domain) continue;
    httpRoutes.push({
      '@id': `redirect-${site.id}`,
      group: SITES_GROUP,
      match: hostMatch([site.domain]),
      handle: [
        {
          handler: 'static_response',
          status_code: 308,
          headers: { Location: [`https://{http.request.host}${httpsSuffix}{http.request.uri}`] },
        },
      ],
      terminal: true,
    });
    httpsRoutes.push(siteRoute(`tls-${site.id}`, site.domain, site));
  }
  const domains = sorted.flatMap((site) => (site.domain ? [site.domain] : []));
  const issuer: Json =
    settings.tls.issuer === 'internal'
      ? { module: 'internal' }
      : {
          module: 'acme',
          ...(settings.tls.email ? { email: settings.tls.email } : {}),
          ...(settings.tls.directoryUrl ? { ca: settings.tls.directoryUrl } : {}),
        };
  const listen = (port: number) => [`${settings.listenHost}:${port}`];
  // Every host of an instance logs its responses under the instance's id; unknown hosts (404) are not
  // logged. Caddy 2.6 matches the Host header as sent, port included (measured), so both spellings.
  const loggerNames = Object.fromEntries(
    sorted.flatMap((site) =>
      [site.temporaryHost, ...(site.domain ? [site.domain] : [])].flatMap((host) => [
        [host, site.id],
        [`${host}:${settings.httpPort}`, site.id],
        [`${host}:${settings.httpsPort}`, site.id],
      ]),
    ),
  );
  const serverLogs = settings.accessLog
    ? { logs: { logger_names: loggerNames, skip_unmapped_hosts: true } }
    : {};
  const access: Json | undefined = settings.accessLog
    ? {
        writer:
          settings.accessLog === 'stdout'
            ? { output: 'stdout' }
            : {
                output: 'file',
                filename: settings.accessLog,
                roll_size_mb: ACCESS_LOG_ROLL_MB,
                roll_keep: 1,
                roll_keep_days: 2,
                roll_gzip: false,
              },
        encoder: accessEncoder,
        include: ['http.log.access'],
      }
    : undefined;
  return {
    // Node's http client always sends a Host (localhost); on a unix socket Caddy allows none by default.
    admin: { listen: settings.adminListen, origins: ['localhost'], config: { persist: false } },
    ...((settings.logFile || access) && {
      logging: {
        logs: {
          default: {
            writer: settings.logFile
              ? {
                  output: 'file',
                  filename: settings.logFile,
                  roll_size_mb: LOG_ROLL_MB,
                  roll_keep: LOG_ROLL_KEEP,
                  roll_keep_days: 14,
                  roll_gzip: true,
                }
              : { output: 'stderr' },
            encoder: { format: 'json' },
            ...(access && { exclude: ['http.log.access'] }),
          },
          ...(access && { access }),
        },
      },
    }),
    apps: {
      http: {
        http_port: settings.httpPort,
        https_port: settings.httpsPort,
        servers: {
          http: {
            listen: listen(settings.httpPort),
            automatic_https: { disable: true },
            ...serverLogs,
            routes: [...httpRoutes, ...sharedRoutes, notFound],
          },
          https: {
            listen: listen(settings.httpsPort),
            automatic_https: { disable_redirects: true },
            ...serverLogs,
            routes: [...httpsRoutes, ...sharedRoutes, notFound],
          },
        },
      },
      // Without custom domains, no policy at all: a policy without subjects would apply to every name.
      tls: domains.length > 0 ? { automation: { policies: [{ subjects: domains, issuers: [issuer] }] } } : {},
      pki: { certificate_authorities: { local: { install_trust: false } } },
    },
  };
}
