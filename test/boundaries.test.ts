// Module boundaries of the guide, checked on every `npm test`: who may import what.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url).pathname;
const NODE_BUILTINS = new Set(
  [
    'fs',
    'path',
    'os',
    'child_process',
    'crypto',
    'http',
    'https',
    'net',
    'url',
    'util',
    'stream',
    'events',
  ].flatMap((m) => [m, `${m}/promises`]),
);

function sourceFiles(dir: string): string[] {
  return (
    readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
      // Not the packages' dependencies, nor the declarations `tsc -b` writes into .tsbuild/.
      .filter(
        (e) => e.isFile() && /\.(ts|tsx|mts)$/.test(e.name) && !/node_modules|\.tsbuild/.test(e.parentPath),
      )
      .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
  );
}

/** Every module specifier a file imports or re-exports, statically or dynamically. */
function importsOf(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g))
    found.push(m[1] ?? '');
  for (const m of source.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) found.push(m[1] ?? '');
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1] ?? '');
  return found;
}

/** Where a relative specifier lands, relative to the repository root. */
const resolved = (file: string, spec: string) =>
  path.relative(root, path.resolve(root, path.dirname(file), spec));

interface Rule {
  files: string;
  filter?: (file: string) => boolean;
  forbid: (spec: string, file: string) => string | undefined;
}

/** The repository file a relative specifier of `file` names, or undefined for a package or another kind of file. */
function targetOf(file: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const target = resolved(file, spec);
  return /\.(ts|tsx|mts)$/.test(target) ? target : undefined;
}

const isTest = (file: string) => /\.test\.(ts|tsx)$/.test(file);

/** Who imports whom among the files under `dir` (every import: static, type-only, re-export, dynamic). */
function importGraph(dir: string): Map<string, string[]> {
  const files = new Set(sourceFiles(dir));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(readFileSync(path.join(root, file), 'utf8'))
      .map((spec) => targetOf(file, spec))
      .filter((target): target is string => target !== undefined && files.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The import cycles of `graph`: each strongly connected group of two or more files, sorted (Tarjan). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

/**
 * The floors of ui/src, from the ground up: a file imports only from its own folder and the floors
 * below it. Features sit on one floor and may use one another (never in a circle). `app/` is the shell:
 * the providers, the route table, the layouts and the bars, which put the features together.
 */
const UI_FLOORS: readonly (readonly string[])[] = [
  ['theme'],
  ['platform'],
  ['components'],
  ['api', 'navigation'],
  ['features'],
  ['app'],
  ['index.ts'],
];

/** The top folder of a ui/src file ('features', 'app', …, or 'index.ts'). */
const uiFolder = (file: string) => path.relative('ui/src', file).split('/')[0] ?? '';
/** A feature's own folder, so that features/x is one unit. */
const uiUnit = (file: string) => {
  const parts = path.relative('ui/src', file).split('/');
  return parts[0] === 'features' ? `features/${parts[1]}` : (parts[0] ?? '');
};
const uiFloor = (file: string) => UI_FLOORS.findIndex((floor) => floor.includes(uiFolder(file)));

/**
 * The floors of the local driver (server/src/provisioning/local): `host/` (users, sandboxes, disks, the
 * supervisor) at the bottom; the front door and the database servers on it; the WordPress, n8n and phpMyAdmin
 * engines and the usage sampler on those; the driver itself, which puts them together, on top. Siblings on a floor never
 * import each other (n8n knows nothing of WordPress, nor the front door of the database servers).
 */
const LOCAL_FLOORS: readonly (readonly string[])[] = [
  ['host'],
  ['front-door', 'databases'],
  ['wordpress', 'n8n', 'phpmyadmin', 'usage'],
  ['local-driver.ts'],
];
const localFolder = (file: string) =>
  path.relative('server/src/provisioning/local', file).split('/')[0] ?? '';
const localFloor = (file: string) => LOCAL_FLOORS.findIndex((floor) => floor.includes(localFolder(file)));

const isNode = (spec: string) => spec.startsWith('node:') || NODE_BUILTINS.has(spec);
const leaves = (file: string, spec: string, folder: string) =>
  spec.startsWith('.') && !resolved(file, spec).startsWith(`${folder}/`);

const SERVER_WORKSPACE_IMPORTS = ['@berth/openapi/rules', '@berth/openapi/web-renderer'];
/** The server's tests: server/test/ and the *.test.ts beside the code. */
const isServerTest = (file: string) => file.startsWith('server/test/') || isTest(file);

const RULES: Rule[] = [
  {
    files: 'ui/src',
    forbid: (spec, file) => {
      if (isNode(spec)) return 'ui never imports node:*';
      if (spec === 'electron' || spec.startsWith('electron/')) return 'ui never imports electron';
      if (/^@berth\/(server|web|desktop)/.test(spec))
        return 'ui imports only @berth/openapi from the workspace';
      if (leaves(file, spec, 'ui')) return 'ui never reaches into other folders';
      return undefined;
    },
  },
  {
    files: 'server',
    forbid: (spec, file) => {
      // The workspace imports allowed: the shared rules (password checks, field limits, regions, prices)
      // and the contract with the web build's renderer. Tests also read the API's generated types, so
      // that the answers they read are typed by the contract (server/test/create-test-app.ts).
      const allowed = isServerTest(file)
        ? [...SERVER_WORKSPACE_IMPORTS, '@berth/openapi']
        : SERVER_WORKSPACE_IMPORTS;
      if (spec.startsWith('@berth/') && !allowed.includes(spec))
        return `server imports no workspace package but ${allowed.join(', ')}`;
      if (leaves(file, spec, 'server') && !spec.endsWith('package.json'))
        return 'server stays inside server/';
      return undefined;
    },
  },
  {
    files: 'server/src/db/migrations',
    filter: (file) => !file.endsWith('index.ts'),
    forbid: (spec) =>
      spec.startsWith('.') ? 'migrations import nothing from src (they are frozen in time)' : undefined,
  },
  {
    files: 'server/src/db/migrations',
    filter: (file) => file.endsWith('index.ts'),
    forbid: (spec) =>
      spec.startsWith('.') && !/^\.\/\d{8}T\d{6}-[a-z0-9-]+\.ts$/.test(spec)
        ? 'the list imports migrations only'
        : undefined,
  },
  {
    files: 'openapi/src',
    forbid: (spec, file) =>
      spec.startsWith('@berth/') || leaves(file, spec, 'openapi/src')
        ? 'openapi imports nothing from the workspace'
        : undefined,
  },
  {
    files: 'web/src',
    forbid: (spec, file) => {
      if (isNode(spec) || spec === 'electron') return 'web runs in the browser';
      if (/^@berth\/(server|desktop)/.test(spec)) return 'web uses ui and openapi only';
      if (leaves(file, spec, 'web/src')) return 'web imports other packages by name';
      return undefined;
    },
  },
  {
    files: 'desktop/src/renderer',
    forbid: (spec) =>
      isNode(spec) || spec === 'electron' ? 'the renderer is sandboxed: only the bridge' : undefined,
  },
  {
    files: 'desktop/src',
    filter: (file) => /desktop\/src\/(main|preload)\//.test(file),
    forbid: (spec) => (spec.startsWith('@berth/ui') ? 'main and preload never import ui' : undefined),
  },
];

describe('module boundaries', () => {
  it('finds every kind of import the rules look at', () => {
    const src = `import a from 'x';\nimport type { B } from "y";\nexport { c } from './z.ts';\nimport 'side';\nconst d = await import('dyn');`;
    expect(importsOf(src)).toEqual(['x', 'y', './z.ts', 'side', 'dyn']);
  });

  it.each(RULES.map((rule, i) => [`${rule.files} #${i + 1}`, rule] as const))('%s', (_name, rule) => {
    const violations: string[] = [];
    for (const file of sourceFiles(rule.files).filter(rule.filter ?? (() => true))) {
      for (const spec of importsOf(readFileSync(path.join(root, file), 'utf8'))) {
        const why = rule.forbid(spec, file);
        if (why) violations.push(`${file}: '${spec}' (${why})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it.each(['server/src', 'ui/src'])('has no import cycle in %s (type-only imports included)', (dir) => {
    expect(cyclesOf(importGraph(dir)).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('finds a cycle through a type-only import', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('places every folder of ui/src on a floor', () => {
    const unplaced = sourceFiles('ui/src').filter((file) => uiFloor(file) === -1);
    expect(unplaced).toEqual([]);
  });

  it('has no upward import in ui/src: lower floors never reach the shell or a feature', () => {
    const upward: string[] = [];
    for (const [file, targets] of importGraph('ui/src')) {
      // A test may render the whole app around what it tests.
      if (isTest(file)) continue;
      for (const target of targets) {
        const [from, to] = [uiFloor(file), uiFloor(target)];
        // Beside itself on its floor, only a feature may use another (another feature).
        const beside = to === from && uiUnit(target) !== uiUnit(file) && uiFolder(file) !== 'features';
        if (to > from || beside) upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('places every file of the local driver on a floor, and no import there goes up or sideways', () => {
    const local = sourceFiles('server/src/provisioning/local').filter((file) => !isTest(file));
    expect(local.filter((file) => localFloor(file) === -1)).toEqual([]);
    const wrong: string[] = [];
    for (const [file, targets] of importGraph('server/src')) {
      // Integration tests build the whole local driver to deploy real instances.
      if (!file.startsWith('server/src/provisioning/local/') || isTest(file)) continue;
      for (const target of targets) {
        if (!target.startsWith('server/src/provisioning/local/')) continue;
        const [from, to] = [localFloor(file), localFloor(target)];
        if (to > from || (to === from && localFolder(target) !== localFolder(file)))
          wrong.push(`${file} -> ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the two drivers apart: local/ and swarm/ never import each other, and neither imports the modules', () => {
    const crossing: string[] = [];
    const LOCAL = 'server/src/provisioning/local/';
    const SWARM = 'server/src/provisioning/swarm/';
    for (const [file, targets] of importGraph('server/src')) {
      // What both drivers know of an instance type lives once, beside them (provisioning/apps/,
      // provisioning/front-door/, …); tests of one driver may build the other's pieces only through it.
      const from = file.startsWith(LOCAL) ? LOCAL : file.startsWith(SWARM) ? SWARM : undefined;
      if (!from) continue;
      for (const target of targets) {
        const other = from === LOCAL ? SWARM : LOCAL;
        if (target.startsWith(other) || target.startsWith('server/src/modules/'))
          crossing.push(`${file} -> ${target}`);
      }
    }
    expect(crossing).toEqual([]);
  });

  it('keeps server/src/modules off the local driver: they reach provisioning through its contract', () => {
    const reaching: string[] = [];
    for (const [file, targets] of importGraph('server/src')) {
      // Integration tests build the real local driver to deploy real instances.
      if (!file.startsWith('server/src/modules/') || isTest(file)) continue;
      for (const target of targets)
        if (target.startsWith('server/src/provisioning/local/')) reaching.push(`${file} -> ${target}`);
    }
    expect(reaching).toEqual([]);
  });

  it('keeps the instances module in floors: its shared model, its kinds, then each concern over those below', () => {
    // modules/instances/, from the ground up: the shared model (its root: context, repository, schemas,
    // secrets; kinds/, what each type is; queue/, the jobs' queue and what the driver takes while it
    // starts), then the concerns, each over those before it: domains/ and credentials/, deploy/ (a
    // deploy may take a domain), backups/ (a restore deploys again) and lifecycle/ (its routes deploy
    // and give credentials), jobs/ (the tasks run them all). Only the wiring at the root gathers them.
    const INSTANCES = 'server/src/modules/instances/';
    const FLOORS: string[][] = [
      ['.', 'kinds', 'queue'],
      ['domains', 'credentials'],
      ['deploy'],
      ['backups', 'lifecycle'],
      ['jobs'],
    ];
    const WIRING = ['instances.service.ts', 'instances.index.ts', 'instance-capabilities.ts'].map(
      (f) => INSTANCES + f,
    );
    const folderOf = (file: string) => path.dirname(path.relative(INSTANCES, file)).split(path.sep)[0] ?? '.';
    const floorOf = (folder: string) => FLOORS.findIndex((floor) => floor.includes(folder));
    const upward: string[] = [];
    for (const [file, targets] of importGraph('server/src')) {
      if (!file.startsWith(INSTANCES) || isTest(file) || WIRING.includes(file)) continue;
      const from = folderOf(file);
      for (const target of targets) {
        if (!target.startsWith(INSTANCES)) continue;
        const to = folderOf(target);
        // The same folder, or a floor below; never a floor above, nor a neighbouring concern.
        const model = floorOf(from) === 0 && floorOf(to) === 0;
        if (to !== from && !model && floorOf(to) >= floorOf(from)) upward.push(`${file} -> ${target}`);
      }
    }
    expect(FLOORS.flat().sort()).toEqual([...new Set(sourceFiles(INSTANCES).map(folderOf))].sort());
    expect(upward).toEqual([]);
  });

  it('reads process.env only in server/src/env.ts', () => {
    const readers = sourceFiles('server/src').filter(
      (file) =>
        file !== 'server/src/env.ts' && readFileSync(path.join(root, file), 'utf8').includes('process.env'),
    );
    expect(readers).toEqual([]);
  });

  it('reaches the desktop host only through Platform', () => {
    const users = sourceFiles('ui/src').filter((file) =>
      /window\.desktop/.test(readFileSync(path.join(root, file), 'utf8')),
    );
    expect(users).toEqual([]);
  });
});
