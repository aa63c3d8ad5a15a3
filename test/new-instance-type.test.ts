import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// ARCHITECTURE.md's "A new instance type", done: a database type added to a copy of the server and
// its shared rules by the recipe's steps alone, which must then compile. Nothing else of the server
// may need to know of it (the instances service, its jobs, the public API ask the kind and the engine).

const root = path.resolve(import.meta.dirname, '..');

/** One step of the recipe: `text` put right before or after `at` (which must be there) in `file`. */
interface Edit {
  file: string;
  at: string;
  text: string;
  where: 'before' | 'after';
}

const TYPE = 'keyvalue';
const unavailable = `unavailableEngine('${TYPE}', () => unavailable.notOffered('${TYPE}', 'not on this server'))`;

const RECIPE: Edit[] = [
  // Its entry in the catalogue: how customers meet it, how clients connect.
  {
    file: 'openapi/src/rules.ts',
    at: '} as const satisfies Record<string, InstanceTypeEntry>;',
    where: 'before',
    text: `  ${TYPE}: {
    name: 'KeyValue',
    category: 'database',
    description: 'A key-value store.',
    deploymentInfo: 'Your store is ready within a minute.',
    deployFields: 'none',
    connection: {
      scheme: 'kv',
      port: 7000,
      flag: 'kv',
      tls: { verify: 'tls=true', caFile: 'ca', publicCas: null },
    },
    fullWords: 'new keys are refused until you free space.',
    restoreWarning: (backup) => \`The store's keys are replaced by those of “\${backup}”.\`,
  },
`,
  },
  // Its id and features.
  {
    file: 'server/src/provisioning/instance-types.ts',
    at: "['mysql', 'postgresql', 'mongodb'",
    where: 'after',
    text: `, '${TYPE}'`,
  },
  {
    file: 'server/src/provisioning/instance-types.ts',
    at: 'export const TYPE_FEATURES = {\n',
    where: 'after',
    text: `  ${TYPE}: ['password'],\n`,
  },
  // Its spec.
  {
    file: 'server/src/provisioning/engine.ts',
    at: 'export interface SpecOf {\n',
    where: 'after',
    text: `  ${TYPE}: DatabaseSpec;\n`,
  },
  // An engine in each driver (here: declared unavailable, with the customer's reason).
  {
    file: 'server/src/provisioning/local/local-driver.ts',
    at: '    ...sql.engines,\n',
    where: 'after',
    text: `    ${TYPE}: ${unavailable},\n`,
  },
  {
    file: 'server/src/provisioning/swarm/swarm-driver.ts',
    at: 'const engines: { [T in InstanceType]: InstanceEngine<SpecOf[T]> } = {\n',
    where: 'after',
    text: `    ${TYPE}: ${unavailable},\n`,
  },
  {
    file: 'server/src/provisioning/unconfigured-driver.ts',
    at: '  const engines: Engines = {\n',
    where: 'after',
    text: `    ${TYPE}: notOffered('${TYPE}'),\n`,
  },
  // Its kind.
  {
    file: 'server/src/modules/instances/kinds/kinds.ts',
    at: "  mongodb: databaseKind('mongodb'),\n",
    where: 'after',
    text: `  ${TYPE}: databaseKind('${TYPE}'),\n`,
  },
  // The column that holds it (and its migration, which the compiler cannot ask for).
  {
    file: 'server/src/db/tables/instances.ts',
    at: "type: 'mysql' | 'postgresql' | 'mongodb'",
    where: 'after',
    text: ` | '${TYPE}'`,
  },
];

const scratches: string[] = [];
afterAll(async () => {
  for (const dir of scratches) await rm(dir, { recursive: true, force: true });
});

/** The server's and the shared rules' sources in a scratch folder, resolving packages as the repo does. */
async function copyOfTheServer(): Promise<string> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'berth-new-type-'));
  scratches.push(scratch);
  await cp(path.join(root, 'tsconfig.base.json'), path.join(scratch, 'tsconfig.base.json'));
  for (const [pkg, references] of [
    ['openapi', []],
    ['server', [{ path: '../openapi' }]],
  ] as const) {
    await cp(path.join(root, pkg, 'src'), path.join(scratch, pkg, 'src'), { recursive: true });
    await cp(path.join(root, pkg, 'package.json'), path.join(scratch, pkg, 'package.json'));
    const own = JSON.parse(await readFile(path.join(root, pkg, 'tsconfig.json'), 'utf8'));
    // The sources alone: the tests keep their own tables of types, which the recipe's last line names.
    const tsconfig = { ...own, include: ['src', 'package.json'], exclude: ['src/**/*.test.ts'], references };
    await writeFile(path.join(scratch, pkg, 'tsconfig.json'), JSON.stringify(tsconfig));
  }
  // Every package of the repo's, but @berth/openapi is the copy's.
  const modules = path.join(scratch, 'node_modules');
  await mkdir(path.join(modules, '@berth'), { recursive: true });
  for (const name of await readdir(path.join(root, 'node_modules'))) {
    if (name !== '@berth') await symlink(path.join(root, 'node_modules', name), path.join(modules, name));
  }
  await symlink(path.join(scratch, 'openapi'), path.join(modules, '@berth', 'openapi'));
  return scratch;
}

async function apply(dir: string, edit: Edit): Promise<void> {
  const file = path.join(dir, edit.file);
  const source = await readFile(file, 'utf8');
  // A step whose place moved fails here: ARCHITECTURE.md's recipe (and this list) must follow the code.
  expect(source, `${edit.file} no longer has ${JSON.stringify(edit.at)}`).toContain(edit.at);
  const at = source.indexOf(edit.at) + (edit.where === 'after' ? edit.at.length : 0);
  await writeFile(file, source.slice(0, at) + edit.text + source.slice(at));
}

async function compile(dir: string): Promise<{ ok: boolean; output: string }> {
  const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
  try {
    await promisify(execFile)(tsc, ['-b', path.join(dir, 'server')], { cwd: dir, maxBuffer: 1 << 24 });
    return { ok: true, output: '' };
  } catch (error) {
    // tsc prints its errors on stdout, and execFile's error carries it.
    return {
      ok: false,
      output: error instanceof Error && 'stdout' in error ? String(error.stdout) : String(error),
    };
  }
}

describe('a new instance type, by the recipe', () => {
  it('compiles with its catalogue entry, id and features, spec, engines, kind and column, and nothing else', async () => {
    const dir = await copyOfTheServer();
    for (const edit of RECIPE) await apply(dir, edit);
    const { ok, output } = await compile(dir);
    expect(output).toBe('');
    expect(ok).toBe(true);
  }, 240_000);

  it('does not compile without its kind, and the compiler says where it is missing', async () => {
    const dir = await copyOfTheServer();
    for (const edit of RECIPE.filter((step) => !step.file.endsWith('kinds.ts'))) await apply(dir, edit);
    const { ok, output } = await compile(dir);
    expect(ok).toBe(false);
    expect(output).toMatch(/kinds\.ts\(\d+,\d+\): error TS2741: Property 'keyvalue' is missing/);
  }, 240_000);
});
