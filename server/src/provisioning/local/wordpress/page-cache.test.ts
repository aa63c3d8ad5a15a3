import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeployedSite, deploySite, required } from '../../../../test/provisioning/engines.ts';
import { killLeftoverServers } from '../../../../test/provisioning/leftover-servers.ts';
import { ensureSiteTestPackages } from '../../../../test/provisioning/site-clients.ts';
import { removeSiteUsersUnder, siteSandbox } from '../../../../test/provisioning/site-sandbox.ts';
import type { ProvisioningDriver } from '../../driver.ts';
import { shell, WRITE_FILE } from '../host/sandbox-process.ts';
import { createLocalDriver } from '../local-driver.ts';
import { CACHE_PATH, CACHE_USAGE_PATH, PAGE_CACHE_LIMITS } from './page-cache.ts';
import { installPageCache, sweepPageCache } from './site-files.ts';
import { INSIDE, runInSandbox, type SandboxSite } from './site-sandbox.ts';

/**
 * The page cache against anonymous visitors filling a site's disk (issue 28): a real WordPress site
 * behind real Caddy, asked for endless variants of its pages (comment pages and page numbers that do
 * not exist, case variants, archive pages past the last). Only canonical addresses are cached, the
 * cache stays under its limits, and the sweep leaves no empty folders behind.
 *
 * The site runs a minimal theme (the customer's choice, written over SFTP in real life): the cache's
 * rules are WordPress core's and the plugin's, and 20,000 renders of the default block theme would cost
 * about 20 minutes of this machine's CPU instead of a few.
 */

let root = '';
let driver: ProvisioningDriver;
let access: DeployedSite;
let sandbox: SandboxSite;
const logs: string[] = [];
const suffix = randomBytes(3).toString('hex');
const id = randomUUID();

const CACHE_DIR = `${INSIDE.public}/${CACHE_PATH}`;

/** The customer's theme: a page title and the posts' titles, nothing else. */
const THEME = {
  'style.css': '/*\nTheme Name: Bare\n*/\n',
  'index.php': `<!doctype html><html><head><title><?php echo esc_html(wp_get_document_title()); ?></title></head><body>
<?php while (have_posts()) { the_post(); echo '<h1>', esc_html(get_the_title()), '</h1>'; } ?>
</body></html>
`,
};

/** PHP with WordPress loaded, as the site user in its sandbox (what wp-admin would do). */
const wordpress = (code: string) =>
  runInSandbox(sandbox, ['/usr/bin/php8.2', '-r', `require '/public/wp-load.php'; ${code}`], { view: 'php' });

/** The cache's files (path below the cache folder → size) and folders, as the site user sees them. */
async function cacheContents(): Promise<{ files: Map<string, number>; dirs: string[] }> {
  const { stdout } = await runInSandbox(
    sandbox,
    shell('cd "$1" 2>/dev/null || exit 0; find . -mindepth 1 -printf "%y %s %P\\n"', CACHE_DIR),
  );
  const files = new Map<string, number>();
  const dirs: string[] = [];
  for (const line of stdout.split('\n').filter(Boolean)) {
    const [type, size, ...name] = line.split(' ');
    if (type === 'd') dirs.push(name.join(' '));
    else files.set(name.join(' '), Number(size));
  }
  return { files, dirs };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** GET through the front door as an anonymous visitor: status and X-Berth-Cache. */
function visit(target: string, host = new URL(access.url).host): Promise<{ status: number; cache?: string }> {
  const { port } = new URL(access.url);
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: '127.0.0.1', port, path: target, headers: { Host: host }, agent, timeout: 60_000 },
        (response) => {
          response.resume();
          const cache = response.headers['x-berth-cache'];
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              cache: typeof cache === 'string' ? cache : undefined,
            }),
          );
        },
      )
      .on('timeout', function (this: http.ClientRequest) {
        this.destroy(new Error(`GET ${target} timed out`));
      })
      .on('error', reject);
  });
}

/** Visits a page until it is served from the cache (a render that overlaps a purge is not written). */
async function cachedAfterVisits(target: string): Promise<boolean> {
  for (let i = 0; i < 5; i++) if ((await visit(target)).cache === 'HIT') return true;
  return false;
}

/** `text` with its letters in upper case by the bits of n (never all lower case: n taken modulo). */
function mixCase(text: string, n: number): string {
  const letters = text.replace(/[^a-z]/g, '').length;
  const bits = (n % (2 ** letters - 1)) + 1;
  let letter = 0;
  return [...text].map((c) => (/[a-z]/.test(c) && (bits >> letter++) & 1 ? c.toUpperCase() : c)).join('');
}

let today = { year: '', month: '', day: '' };

/** The i-th of 20,000 anonymous requests for variants of the site's pages, none of them canonical. */
function variant(i: number): string {
  const n = Math.floor(i / 10) + 1;
  const { year, month, day } = today;
  switch (i % 10) {
    case 0:
      return `/hello-world/comment-page-${n + 3}/`; // comment pages past the last
    case 1:
      return `/${mixCase('hello-world', n)}/`; // the post, case variants (2,047 of them)
    case 2:
      return `/hello-world/${n + 1}/`; // page numbers the post does not have
    case 3:
      return `/${mixCase('sample-page', n)}/`;
    case 4:
      return `/category/${mixCase('uncategorized', n)}/`;
    case 5:
      return `/page/${n + 1}/`; // the home page's pages past the last
    case 6:
      return `/category/uncategorized/page/${n + 1}/`;
    case 7:
      return `/${mixCase('hello-world', n)}/comment-page-${(n % 3) + 1}/`; // existing comment pages, case variants
    case 8:
      return `/${year}/${month}/${day}/page/${n + 1}/`;
    default:
      return `/author/captain/page/${n + 1}/`;
  }
}

beforeAll(async () => {
  await ensureSiteTestPackages();
  // Directly under /tmp: mysql, caddy and the site user must be able to traverse it.
  root = await mkdtemp('/tmp/berth-cache-');
  driver = createLocalDriver({ dataRoot: root, sites: {}, log: (line) => logs.push(line) });
  await driver.start();
  access = await deploySite(driver, {
    id,
    title: `Cache ${suffix}`,
    adminUser: 'captain',
    adminEmail: 'captain@example.com',
    adminPassword: `cache pass ${suffix}`,
    phpVersion: '8.2',
  });
  sandbox = siteSandbox(root, id);
  for (const [file, text] of Object.entries(THEME)) {
    const target = `${INSIDE.public}/wp-content/themes/bare/${file}`;
    await runInSandbox(sandbox, shell(`mkdir -p "$(dirname "$1")"\n${WRITE_FILE}`, target, '644'), {
      input: text,
    });
  }
  // Comments in pages of one, and two more approved comments: Hello world! has 3 comment pages.
  const { stdout } = await wordpress(`switch_theme('bare');
    update_option('page_comments', 1); update_option('comments_per_page', 1);
    foreach (['Second', 'Third'] as $text) {
      wp_insert_comment(['comment_post_ID' => 1, 'comment_content' => $text, 'comment_approved' => 1, 'comment_author' => 'Reader']);
    }
    echo get_the_date('Y-m-d', 1);`);
  const [year = '', month = '', day = ''] = stdout.trim().split('-');
  today = { year, month, day };
  // WordPress finishes a theme switch at its next load (an option changes: the cache is cleared then).
  await wordpress("echo get_option('theme_switched') === false ? 'done' : 'pending';");
}, 300_000);

afterAll(async () => {
  agent.destroy();
  await driver?.stop().catch(() => {});
  killLeftoverServers(root); // only after a failure
  await removeSiteUsersUnder(root);
  if (root) await rm(root, { recursive: true, force: true });
}, 60_000);

describe('the page cache against anonymous visitors filling the disk', () => {
  /** The canonical addresses of the site's pages, and where their cached copies live. */
  const canonical = () => {
    const { year, month, day } = today;
    return [
      '/',
      '/hello-world/',
      '/hello-world/comment-page-1/',
      '/hello-world/comment-page-2/',
      '/hello-world/comment-page-3/',
      '/sample-page/',
      '/category/uncategorized/',
      '/author/captain/',
      `/${year}/`,
      `/${year}/${month}/`,
      `/${year}/${month}/${day}/`,
    ];
  };
  const cacheFile = (page: string) => `${new URL(access.url).hostname}${page.replace(/\/$/, '')}/index.html`;

  it('caches a page at its canonical address only; its variants are rendered each time and written nowhere', async () => {
    for (const page of canonical()) {
      expect((await visit(page)).status, page).toBe(200);
      expect(await cachedAfterVisits(page), page).toBe(true);
    }
    const before = await cacheContents();
    expect([...before.files.keys()].filter((f) => f.endsWith('index.html')).sort()).toEqual(
      canonical().map(cacheFile).sort(),
    );
    const variants = [
      '/Hello-World/',
      '/HELLO-WORLD/',
      '/hello-world/comment-page-4/',
      '/hello-world/comment-page-999/',
      '/Hello-World/comment-page-2/',
      '/hello-world/2/',
      '/sample-page/2/',
      '/Sample-Page/',
      '/category/Uncategorized/',
      '/AUTHOR/captain/',
    ];
    for (const page of variants) {
      for (let i = 0; i < 2; i++) {
        const answer = await visit(page);
        // Rendered by PHP (never a HIT), not marked for the cache (no MISS): WordPress answered it.
        expect(answer.cache, page).toBeUndefined();
        expect([200, 301, 404], page).toContain(answer.status);
      }
    }
    // The site's own host only: another Host WordPress still answers (upper case) is not cached.
    const upper = new URL(access.url).host.toUpperCase();
    expect((await visit('/sample-page/', upper)).cache).not.toBe('MISS');
    const after = await cacheContents();
    expect([...after.files.keys()].sort()).toEqual([...before.files.keys()].sort());
  });

  it('20,000 anonymous requests to page variants leave the cache at the canonical pages, under its limits', {
    timeout: 1_800_000,
  }, async () => {
    const usedBefore = required(
      (await required(driver.engine('wordpress').storage).usage(id)) ?? undefined,
      'its size',
    ).usedBytes;
    const total = 20_000;
    const statuses = new Map<number, number>();
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < total) {
          const answer = await visit(variant(next++));
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const { files, dirs } = await cacheContents();
    const pages = [...files.entries()].filter(([name]) => name.endsWith('index.html'));
    const bytes = [...files.values()].reduce((sum, size) => sum + size, 0);
    const usedAfter = required(
      (await required(driver.engine('wordpress').storage).usage(id)) ?? undefined,
      'its size',
    ).usedBytes;
    console.log(
      `${total} variant requests in ${seconds.toFixed(0)} s (${(total / seconds).toFixed(0)}/s), answers ${JSON.stringify(Object.fromEntries(statuses))}: the cache holds ${pages.length} pages, ${bytes} bytes in ${dirs.length} folders; the disk grew by ${usedAfter - usedBefore} bytes`,
    );
    // WordPress answered most of them as pages (the attack the cache must not store).
    expect(statuses.get(200) ?? 0).toBeGreaterThan(total / 3);
    // Only canonical pages (some may have been purged meanwhile by WordPress' own cron), nothing else.
    const allowed = new Set(canonical().map(cacheFile));
    expect(pages.map(([name]) => name).filter((name) => !allowed.has(name))).toEqual([]);
    expect(pages.length).toBeLessThanOrEqual(PAGE_CACHE_LIMITS.maxPages);
    expect(bytes).toBeLessThanOrEqual(PAGE_CACHE_LIMITS.maxBytes);
    expect(dirs.length).toBeLessThan(30);
    expect(usedAfter - usedBefore).toBeLessThan(2 * 1024 * 1024);
  });

  it('holds a site with more canonical pages than its limits at the limits (pages, then bytes)', {
    timeout: 300_000,
  }, async () => {
    const { stdout } = await wordpress(`
      $ids = [];
      for ($i = 1; $i <= 12; $i++) {
        $ids[] = wp_insert_post(['post_title' => "Post $i", 'post_name' => "post-$i", 'post_status' => 'publish', 'post_content' => str_repeat('words ', 50)]);
      }
      echo json_encode(array_map(fn ($id) => wp_parse_url(get_permalink($id), PHP_URL_PATH), $ids));`);
    const posts = JSON.parse(stdout.trim()) as string[];
    expect(posts).toHaveLength(12);
    try {
      for (const [limits, check] of [
        [{ maxPages: 5, maxBytes: 10 * 1024 * 1024 }, (pages: number) => pages === 5],
        // A page of this theme is about 110 bytes: 600 bytes hold five of the twelve.
        [{ maxPages: 100, maxBytes: 600 }, (pages: number) => pages >= 1 && pages < 12],
      ] as const) {
        await installPageCache(sandbox, limits);
        await wordpress('berth_cache_purge();');
        for (const post of posts) for (let i = 0; i < 2; i++) expect((await visit(post)).status).toBe(200);
        const { files } = await cacheContents();
        const pages = [...files.keys()].filter((name) => name.endsWith('index.html'));
        const bytes = [...files.values()].reduce((sum, size) => sum + size, 0);
        expect(check(pages.length), `${pages.length} pages, ${bytes} bytes`).toBe(true);
        expect(pages.length).toBeLessThanOrEqual(limits.maxPages);
        expect(bytes).toBeLessThanOrEqual(limits.maxBytes);
      }
    } finally {
      await installPageCache(sandbox);
    }
  });

  it('the sweep removes stale pages, the folders they leave empty and the count; the next page is counted afresh', async () => {
    await wordpress('berth_cache_purge();');
    for (const page of ['/hello-world/', '/category/uncategorized/', '/sample-page/'])
      expect(await cachedAfterVisits(page), page).toBe(true);
    expect((await cacheContents()).files.size).toBeGreaterThanOrEqual(3);
    // Every page older than the cache keeps them (what the driver's upkeep finds after 10 minutes).
    await runInSandbox(sandbox, shell('find "$1" -type f -exec touch -d "-20 minutes" {} +', CACHE_DIR));
    await sweepPageCache(sandbox);
    expect(await cacheContents()).toEqual({ files: new Map(), dirs: [] });
    const usage = `${INSIDE.public}/${CACHE_USAGE_PATH}`;
    await expect(runInSandbox(sandbox, ['/usr/bin/test', '-e', usage])).rejects.toThrow();
    expect(await cachedAfterVisits('/sample-page/')).toBe(true);
    const { stdout } = await runInSandbox(sandbox, ['/usr/bin/cat', usage]);
    const counted = JSON.parse(stdout) as { pages: number; bytes: number };
    const { files } = await cacheContents();
    expect(counted).toEqual({ pages: files.size, bytes: [...files.values()].reduce((s, b) => s + b, 0) });
  });
});
