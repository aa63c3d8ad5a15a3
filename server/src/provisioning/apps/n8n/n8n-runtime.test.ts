import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemUser } from '../../local/host/host.ts';
import {
  compileCacheWarmUp,
  ensureN8nCompileCache,
  ensureN8nTemplate,
  n8nCompileCache,
  n8nCompileCacheDir,
  n8nTemplate,
  n8nTemplateDir,
  TEMPLATE_FILES,
  templateWarmUp,
} from '../../local/n8n/n8n-warm-ups.ts';
import { DEFAULT_RUNTIMES_DIR, missingRuntimeReason, n8nRuntimeDir } from './n8n-runtime.ts';

/**
 * The one-time warm-ups (template database, compile cache) run n8n as `nobody` in a bwrap sandbox
 * without network. The expected lists below are what the code produced for these inputs before both
 * warm-ups shared one sandbox builder: a change that drops a flag, a read-only bind or the user fails.
 */

const runtimeDir = '/runtimes/n8n-2.8.4';
const node = '/runtimes/node-24.0.0/node';
const nobody = { uid: 65534, gid: 65534 };
const template = '/runtimes/n8n-2.8.4-template.partial';
const cache = '/runtimes/n8n-2.8.4-compile-cache.partial';

/** Everything before the writable folders, common to both warm-ups. */
const sandboxStart = [
  '--unshare-all',
  '--die-with-parent',
  '--ro-bind',
  '/usr',
  '/usr',
  '--symlink',
  'usr/bin',
  '/bin',
  '--symlink',
  'usr/lib',
  '/lib',
  '--symlink',
  'usr/lib64',
  '/lib64',
  '--ro-bind',
  runtimeDir,
  '/opt/n8n',
  '--ro-bind',
  node,
  '/opt/node/bin/node',
];
const sandboxEnd = ['--proc', '/proc', '--dev', '/dev', '--chdir', '/data', '--'];
const n8n = ['/opt/node/bin/node', '/opt/n8n/node_modules/n8n/bin/n8n'];

const templateRun = () => templateWarmUp({ runtimeDir, node, nobody }, template);
const cacheRun = () => compileCacheWarmUp({ runtimeDir, node, nobody }, cache);

/** The environment both warm-ups had in common. */
const commonEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/data',
  N8N_USER_FOLDER: '/data',
  DB_TYPE: 'sqlite',
  NODE_ENV: 'production',
  N8N_DIAGNOSTICS_ENABLED: 'false',
};

/** The host paths a sandbox's argument list binds writable (`--bind host inside`). */
const writableBinds = (args: string[]) =>
  args.flatMap((arg, i) => (arg === '--bind' ? [`${args[i + 1]} -> ${args[i + 2]}`] : []));

describe('the warm-ups sandbox (templateWarmUp, compileCacheWarmUp)', () => {
  it('runs the template migrations with the same bwrap arguments, user and environment as before', () => {
    const warmUp = templateRun();
    expect(warmUp.command).toBe('/usr/bin/bwrap');
    expect(warmUp.args).toEqual([
      ...sandboxStart,
      ...['--bind', template, '/data'],
      ...['--bind', `${template}/tmp`, '/tmp'],
      ...sandboxEnd,
      ...n8n,
      'list:workflow',
    ]);
    expect(warmUp.options).toEqual({
      uid: nobody.uid,
      gid: nobody.gid,
      env: { ...commonEnv, N8N_ENCRYPTION_KEY: 'berth-template' },
    });
  });

  it('runs the compile-cache warm-up with the same bwrap arguments, user and environment as before', () => {
    const warmUp = cacheRun();
    expect(warmUp.command).toBe('/usr/bin/bwrap');
    expect(warmUp.args).toEqual([
      ...sandboxStart,
      ...['--bind', `${cache}/cache`, '/opt/node-cache'],
      ...['--bind', `${cache}/data`, '/data'],
      ...['--bind', `${cache}/data/tmp`, '/tmp'],
      ...sandboxEnd,
      ...n8n,
      'start',
    ]);
    expect(warmUp.options).toEqual({
      uid: nobody.uid,
      gid: nobody.gid,
      env: {
        ...commonEnv,
        TMPDIR: '/tmp',
        N8N_ENCRYPTION_KEY: 'berth-warm-up',
        N8N_LISTEN_ADDRESS: '127.0.0.1',
        NODE_COMPILE_CACHE: '/opt/node-cache',
        N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
        N8N_TEMPLATES_ENABLED: 'false',
        N8N_PERSONALIZATION_ENABLED: 'false',
        N8N_COMMUNITY_PACKAGES_ENABLED: 'false',
        N8N_DISABLED_MODULES: 'breaking-changes,quick-connect',
      },
    });
  });

  it('keeps each warm-up isolated: no network, read-only host, only its own folder writable, as nobody', () => {
    for (const [warmUp, own] of [
      [templateRun(), template],
      [cacheRun(), cache],
    ] as const) {
      const args = warmUp.args;
      const options = args.slice(0, args.indexOf('--'));
      // Every namespace unshared (network included), and nothing that would share one back.
      expect(options[0]).toBe('--unshare-all');
      expect(options.filter((arg) => arg.startsWith('--share'))).toEqual([]);
      expect(options).toContain('--die-with-parent');
      // The host's programs, the runtime and Node are bound read-only; the only writable binds are the
      // warm-up's own folder and what lies under it.
      expect(args.slice(args.indexOf('/usr') - 1, args.indexOf('/usr') + 2)).toEqual([
        '--ro-bind',
        '/usr',
        '/usr',
      ]);
      expect(args[args.indexOf(runtimeDir) - 1]).toBe('--ro-bind');
      expect(args[args.indexOf(node) - 1]).toBe('--ro-bind');
      const writable = writableBinds(args);
      expect(writable.length).toBeGreaterThan(0);
      for (const bind of writable) expect(bind.startsWith(own)).toBe(true);
      expect(options).not.toContain('--bind-try');
      expect(options).not.toContain('--dev-bind');
      // Run as nobody.
      expect(warmUp.options.uid).toBe(nobody.uid);
      expect(warmUp.options.gid).toBe(nobody.gid);
    }
  });
});

/**
 * Both warm-ups for real, into a throwaway runtimes folder (the installed runtime and Node are linked in,
 * not copied): only where the n8n runtime is installed (`npm run install-n8n`), as root (the results
 * become root's), with bwrap and a `nobody` user.
 */
const nobodyUser = systemUser('nobody');
const skipReal =
  missingRuntimeReason(DEFAULT_RUNTIMES_DIR) ??
  (process.getuid?.() !== 0 ? 'the warm-ups chown their results to root: run as root' : undefined) ??
  (existsSync('/usr/bin/bwrap') ? undefined : '/usr/bin/bwrap is not installed') ??
  (nobodyUser ? undefined : 'this host has no nobody user');
if (skipReal) console.warn(`[n8n warm-up run skipped] ${skipReal}`);

describe.skipIf(skipReal !== undefined)('the warm-ups, run for real into a fresh runtimes folder', () => {
  let runtimes = '';
  afterAll(async () => {
    if (runtimes) await rm(runtimes, { recursive: true, force: true });
  });

  /** Root's, read-only to others, plain files only. */
  const expectRootsFiles = (dir: string) => {
    expect(lstatSync(dir).uid).toBe(0);
    for (const entry of readdirSync(dir)) {
      const stat = lstatSync(path.join(dir, entry));
      expect(stat.isFile()).toBe(true);
      expect([stat.uid, stat.gid, stat.mode & 0o777]).toEqual([0, 0, 0o644]);
    }
  };

  it('makes the template database, then the compile cache (as nobody), both root-owned and read-only', async () => {
    const user = nobodyUser ?? { uid: -1, gid: -1 };
    runtimes = await mkdtemp('/tmp/berth-n8n-warm-up-');
    await chmod(runtimes, 0o755);
    await symlink(n8nRuntimeDir(DEFAULT_RUNTIMES_DIR), n8nRuntimeDir(runtimes));
    const nodeDir = `node-${process.version.slice(1)}`;
    if (existsSync(path.join(DEFAULT_RUNTIMES_DIR, nodeDir, 'node'))) {
      await mkdir(path.join(runtimes, nodeDir), { mode: 0o755 });
      await symlink(path.join(DEFAULT_RUNTIMES_DIR, nodeDir, 'node'), path.join(runtimes, nodeDir, 'node'));
    }
    const logs: string[] = [];

    await ensureN8nTemplate(runtimes, user, (line) => logs.push(line));
    const made = n8nTemplate(runtimes);
    expect(made).toBe(path.join(n8nTemplateDir(runtimes), '.n8n'));
    expect(readdirSync(made ?? '').every((entry) => TEMPLATE_FILES.includes(entry))).toBe(true);
    expect(
      readFileSync(path.join(made ?? '', 'database.sqlite'))
        .subarray(0, 16)
        .toString(),
    ).toBe('SQLite format 3\0');
    expectRootsFiles(made ?? '');
    expect(existsSync(`${n8nTemplateDir(runtimes)}.partial`)).toBe(false);

    await ensureN8nCompileCache(runtimes, user, (line) => logs.push(line));
    const compiled = n8nCompileCache(runtimes);
    // Node names the folder after the user that wrote it: the warm-up ran as nobody.
    expect(path.basename(compiled ?? '')).toMatch(
      new RegExp(`^v${process.version.slice(1)}-.*-${user.uid}$`),
    );
    expect(readdirSync(compiled ?? '').length).toBeGreaterThan(0);
    expectRootsFiles(compiled ?? '');
    expect(existsSync(`${n8nCompileCacheDir(runtimes)}.partial`)).toBe(false);
    console.log(logs.join('\n'));
  }, 600_000);
});
