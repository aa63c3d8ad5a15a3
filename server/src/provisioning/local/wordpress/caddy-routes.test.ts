import { describe, expect, it } from 'vitest';
import { buildCaddyConfig, type CaddySite, type Json, proxyTo } from '../../front-door/caddy-config.ts';
import { wordpressHandler } from './caddy-routes.ts';

const settings = {
  adminListen: 'unix//run/caddy/admin.sock',
  listenHost: '127.0.0.1',
  httpPort: 8180,
  httpsPort: 8543,
  tls: { issuer: 'internal' as const },
};

const wordpress = (n: number, more: Partial<CaddySite> = {}): CaddySite => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  temporaryHost: `site${n}.berth.localhost`,
  domain: null,
  suspended: false,
  handler: wordpressHandler({
    publicDir: `/srv/sites/${n}/public`,
    phpSocket: `/srv/sites/${n}/run/php.sock`,
  }),
  ...more,
});

interface Route {
  '@id'?: string;
  group?: string;
  match?: Json[];
  handle: Json[];
  terminal?: boolean;
}
const routesOf = (config: Json, server: 'http' | 'https'): Route[] =>
  (config as { apps: { http: { servers: Record<string, { routes: Route[] }> } } }).apps.http.servers[server]
    ?.routes ?? [];

describe('the front door configuration', () => {
  it('grows by one small route a site: the sites of a kind share one handler', () => {
    const size = (sites: number) =>
      JSON.stringify(
        buildCaddyConfig(
          settings,
          Array.from({ length: sites }, (_, n) => wordpress(n)),
        ),
      ).length;
    const perSite = (size(101) - size(1)) / 100;
    // The WordPress handler alone (its PHP, files, page cache and upload rules) is about 2 KiB.
    expect(
      JSON.stringify(wordpressHandler({ publicDir: '/a', phpSocket: '/b' }).shared.handler).length,
    ).toBeGreaterThan(1500);
    expect(perSite).toBeLessThan(700);

    const routes = routesOf(buildCaddyConfig(settings, [wordpress(1), wordpress(2)]), 'http');
    // Two sites' routes, the one WordPress handler, the 404.
    expect(routes).toHaveLength(4);
    expect(routes[0]).toMatchObject({
      group: 'sites',
      match: [{ host: ['site1.berth.localhost'] }],
      handle: [
        {
          handler: 'vars',
          root: '/srv/sites/1/public',
          berth_upstream: 'unix//srv/sites/1/run/php.sock',
          berth_handler: 'wordpress',
        },
      ],
    });
    expect(routes[0]?.terminal).toBeUndefined();
    expect(routes[2]).toMatchObject({ match: [{ vars: { berth_handler: ['wordpress'] } }], terminal: true });
    expect(routes[3]).toMatchObject({ handle: [{ status_code: 404 }] });
  });

  it('ends a suspended site’s hosts at the offline page, and a domain’s plain HTTP at the redirect', () => {
    const config = buildCaddyConfig(settings, [
      wordpress(1, { suspended: true, domain: 'shop.example.com' }),
      { ...wordpress(2), handler: proxyTo('127.0.0.1:5678') },
    ]);
    const http = routesOf(config, 'http');
    const https = routesOf(config, 'https');
    expect(http.map((route) => route['@id'] ?? route.match?.[0])).toEqual([
      'site-00000000-0000-4000-8000-000000000001',
      'redirect-00000000-0000-4000-8000-000000000001',
      'site-00000000-0000-4000-8000-000000000002',
      { vars: { berth_handler: ['proxy'] } },
      undefined,
    ]);
    expect(http[0]).toMatchObject({ handle: [{ status_code: 503 }], terminal: true });
    expect(http[1]).toMatchObject({ handle: [{ status_code: 308 }], terminal: true });
    expect(http[2]?.handle[0]).toMatchObject({ berth_upstream: '127.0.0.1:5678', berth_handler: 'proxy' });
    expect(https[0]).toMatchObject({
      match: [{ host: ['shop.example.com'] }],
      handle: [{ status_code: 503 }],
    });
    // Every site route is in one group: only the first whose host matches sets its variables.
    expect(
      [...http, ...https].filter((route) => route['@id']).every((route) => route.group === 'sites'),
    ).toBe(true);
  });
});
