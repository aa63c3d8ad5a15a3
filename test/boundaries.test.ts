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
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts)$/.test(e.name) && !e.parentPath.includes('node_modules'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
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

const isNode = (spec: string) => spec.startsWith('node:') || NODE_BUILTINS.has(spec);
const leaves = (file: string, spec: string, folder: string) =>
  spec.startsWith('.') && !resolved(file, spec).startsWith(`${folder}/`);

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
      // The shared rules (password checks, field limits, regions) are the one workspace import allowed.
      if (spec.startsWith('@berth/') && spec !== '@berth/openapi/rules')
        return 'server imports no workspace package but @berth/openapi/rules';
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
