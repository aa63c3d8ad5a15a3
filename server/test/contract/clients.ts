import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { InstanceType } from '../../src/provisioning/instance-types.ts';
import { curl, type RunResult, runCommand, sftpBatch } from '../provisioning/site-clients.ts';

/**
 * The customers' real clients, driven only by what the API answered: `mariadb` and `psql` with the TLS
 * the credentials ask for (verifying the server with the CA they carry), `curl` to sites, n8n and
 * phpMyAdmin through the driver's front door, OpenSSH's `sftp`. Each type's client can tell whether the
 * instance works, leave a mark in its data (a row, a post, a workflow) and list the marks, which is how
 * the contract sees a backup restored exactly.
 */

/** The database part of GET /api/instances/{id}/access, as the API answers it. */
export interface AccessDatabase {
  host: string;
  port: number;
  name: string;
  user: string;
  password: string;
  /** Absent in answers of servers before TLS; `caCertificate` null: a public CA signs the server's. */
  tls?: { required: boolean; caCertificate: string | null } | null;
  phpmyadmin: string | null;
}

/** A sold instance's client: works, is refused (suspended, deleted), keeps marks. */
export interface InstanceClient {
  /** Uses the instance as its customer would; throws saying what failed. */
  works(): Promise<void>;
  /** Whether the customer's client is turned away now (suspended, deleted). */
  refused(): Promise<boolean>;
  /** Leaves `name` in the instance's data. */
  mark(name: string): Promise<void>;
  /** The marks in its data now. */
  marks(): Promise<string[]>;
}

/** Where clients keep their files (cookie jars, CA files, SFTP transfers). */
export interface ClientContext {
  work: string;
  /** Where every site host name resolves to (the driver's front door). */
  frontDoor: string;
}

const fail = (what: string, result: RunResult): never => {
  throw new Error(`${what}: exit ${result.code}: ${(result.stderr || result.stdout).trim().slice(0, 800)}`);
};

/** curl arguments that reach `url` at the front door (its host resolved there, on the URL's port). */
function reach(ctx: ClientContext, url: string, ca?: string): string[] {
  const target = new URL(url);
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  return [
    '--max-time',
    '60',
    '--resolve',
    `${target.hostname}:${port}:${ctx.frontDoor}`,
    ...(target.protocol === 'https:' && ca ? ['--cacert', ca] : []),
  ];
}

/** GET `url` as a browser would (no redirects followed). */
export const fetchPage = (ctx: ClientContext, url: string, ca?: string) =>
  curl([...reach(ctx, url, ca), url]);

// ---------------------------------------------------------------------------------------------------
// SQL: mariadb and psql

const MARIADB = '/usr/bin/mariadb';
const PSQL = '/usr/bin/psql';

/** The CA file the credentials' TLS names (written once), or null: verify with the system's CAs. */
async function caFile(ctx: ClientContext, db: AccessDatabase): Promise<string | null> {
  const pem = db.tls?.caCertificate;
  if (!pem) return null;
  const file = path.join(ctx.work, `ca-${db.user}.pem`);
  if (!existsSync(file)) await writeFile(file, pem);
  return file;
}

/**
 * Runs `sql` as the credentials' user with the engine's own client, over TLS verifying the server where
 * the credentials require it; `database` and `at` (host and port) default to the credentials' own.
 */
export async function sql(
  ctx: ClientContext,
  type: 'mysql' | 'postgresql',
  db: AccessDatabase,
  statement: string,
  options: { database?: string; at?: { host: string; port: number }; password?: string } = {},
): Promise<RunResult> {
  const host = options.at?.host ?? db.host;
  const port = options.at?.port ?? db.port;
  const database = options.database ?? db.name;
  const password = options.password ?? db.password;
  const ca = await caFile(ctx, db);
  if (type === 'mysql') {
    const tls = db.tls?.required
      ? ['--ssl', '--ssl-verify-server-cert', ...(ca ? [`--ssl-ca=${ca}`] : [])]
      : [];
    return runCommand(
      MARIADB,
      [
        '--no-defaults',
        '--protocol=TCP',
        ...tls,
        `--host=${host}`,
        `--port=${port}`,
        `--user=${db.user}`,
        `--database=${database}`,
        '--connect-timeout=10',
        '--batch',
        '--skip-column-names',
        `--execute=${statement}`,
      ],
      { env: { MYSQL_PWD: password }, timeoutMs: 30_000 },
    );
  }
  const tls: Record<string, string> = db.tls?.required
    ? { PGSSLMODE: 'verify-full', PGSSLROOTCERT: ca ?? '/etc/ssl/certs/ca-certificates.crt' }
    : {};
  return runCommand(
    PSQL,
    [
      '--no-psqlrc',
      '--quiet',
      '--no-align',
      '--tuples-only',
      '--set=ON_ERROR_STOP=1',
      `--host=${host}`,
      `--port=${port}`,
      `--username=${db.user}`,
      `--dbname=${database}`,
      `--command=${statement}`,
    ],
    { env: { PGPASSWORD: password, PGCONNECT_TIMEOUT: '10', ...tls }, timeoutMs: 30_000 },
  );
}

function sqlClient(
  ctx: ClientContext,
  type: 'mysql' | 'postgresql',
  db: () => AccessDatabase,
): InstanceClient {
  const run = async (statement: string) => {
    const result = await sql(ctx, type, db(), statement);
    if (result.code !== 0) fail(`${type} as ${db().user}: ${statement}`, result);
    return result.stdout.trim();
  };
  return {
    async works() {
      if ((await run('SELECT 1')) !== '1') throw new Error('SELECT 1 did not answer 1');
    },
    async refused() {
      return (await sql(ctx, type, db(), 'SELECT 1')).code !== 0;
    },
    async mark(name) {
      await run('CREATE TABLE IF NOT EXISTS contract_marks (name varchar(100))');
      await run(`INSERT INTO contract_marks (name) VALUES ('${name.replace(/[^a-z0-9-]/gi, '')}')`);
    },
    async marks() {
      return (await run('SELECT name FROM contract_marks ORDER BY name')).split('\n').filter(Boolean);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// WordPress: the site, wp-admin, and its REST API with the admin's session

interface WordPressLogin {
  url: string;
  user: string;
  password: string;
  title: string;
}

function wordpressClient(ctx: ClientContext, site: () => WordPressLogin, jar: string): InstanceClient {
  const session = ['-c', jar, '-b', jar];
  const at = (suffix: string) => `${site().url}${suffix}`;

  async function signIn() {
    const { user, password } = site();
    await curl([...reach(ctx, at('/wp-login.php')), ...session, at('/wp-login.php')]);
    const signed = await curl([
      ...reach(ctx, at('/wp-login.php')),
      ...session,
      ...['--data-urlencode', `log=${user}`, '--data-urlencode', `pwd=${password}`, '-d', 'testcookie=1'],
      at('/wp-login.php'),
    ]);
    if (signed.status !== 302) throw new Error(`wp-login.php answered ${signed.status}: ${signed.stderr}`);
    // The REST nonce of the signed-in admin (WordPress 5.3+).
    const nonce = await curl([
      ...reach(ctx, at('/wp-admin/admin-ajax.php')),
      ...session,
      at('/wp-admin/admin-ajax.php?action=rest-nonce'),
    ]);
    if (nonce.status !== 200 || !/^[0-9a-f]{10}$/.test(nonce.body.trim()))
      throw new Error(`no REST nonce: ${nonce.status} ${nonce.body.slice(0, 200)}`);
    return nonce.body.trim();
  }

  return {
    async works() {
      const home = await fetchPage(ctx, at('/'));
      if (home.status !== 200 || !home.body.includes(`<title>${site().title}`))
        throw new Error(`the site answered ${home.status} ${home.stderr} without its title`);
      await signIn();
    },
    async refused() {
      return (await fetchPage(ctx, at('/'))).status !== 200;
    },
    async mark(name) {
      const nonce = await signIn();
      const created = await curl([
        ...reach(ctx, at('/')),
        ...session,
        ...['-H', `X-WP-Nonce: ${nonce}`, '-H', 'Content-Type: application/json'],
        ...['--data-binary', JSON.stringify({ title: name, status: 'publish', content: name })],
        at('/?rest_route=/wp/v2/posts'),
      ]);
      if (created.status !== 201) throw new Error(`a new post answered ${created.status}: ${created.body}`);
    },
    async marks() {
      const list = await curl([
        ...reach(ctx, at('/')),
        at(`/?rest_route=/wp/v2/posts&per_page=100&_fields=title&contract=${Date.now()}`),
      ]);
      if (list.status !== 200)
        throw new Error(`the posts answered ${list.status}: ${list.body.slice(0, 300)}`);
      return (JSON.parse(list.body) as { title: { rendered: string } }[]).map((post) => post.title.rendered);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// n8n: the editor and its REST API with the owner's session

interface N8nLogin {
  url: string;
  email: string;
  password: string;
}

function n8nClient(ctx: ClientContext, owner: () => N8nLogin, jar: string): InstanceClient {
  const at = (suffix: string) => `${owner().url}${suffix}`;
  const headers = ['-H', 'browser-id: berth-contract', '-H', 'Content-Type: application/json'];
  const rest = (method: string, route: string, body?: unknown) =>
    curl([
      ...reach(ctx, at('/')),
      ...['-c', jar, '-b', jar, '-X', method, ...headers],
      ...(body === undefined ? [] : ['--data-binary', JSON.stringify(body)]),
      at(route),
    ]);
  const signIn = async () => {
    const { email, password } = owner();
    const login = await rest('POST', '/rest/login', { emailOrLdapLoginId: email, password });
    if (login.status !== 200)
      throw new Error(`n8n's login answered ${login.status}: ${login.body.slice(0, 300)}`);
  };
  return {
    async works() {
      const editor = await fetchPage(ctx, at('/'));
      if (editor.status !== 200 || !editor.body.includes('n8n'))
        throw new Error(`the editor answered ${editor.status} ${editor.stderr}`);
      await signIn();
    },
    async refused() {
      return (await fetchPage(ctx, at('/'))).status !== 200;
    },
    async mark(name) {
      await signIn();
      const created = await rest('POST', '/rest/workflows', {
        name,
        active: false,
        nodes: [],
        connections: {},
        settings: { executionOrder: 'v1' },
      });
      if (created.status !== 200)
        throw new Error(`a new workflow answered ${created.status}: ${created.body}`);
    },
    async marks() {
      await signIn();
      const list = await rest('GET', '/rest/workflows');
      if (list.status !== 200) throw new Error(`the workflows answered ${list.status}`);
      const answer = JSON.parse(list.body) as { data: { name: string }[] | { data: { name: string }[] } };
      const rows = Array.isArray(answer.data) ? answer.data : answer.data.data;
      return rows.map((workflow) => workflow.name);
    },
  };
}

/** What the contract knows of a running instance to reach it as its customer would. */
export interface Reachable {
  type: InstanceType;
  url: string | null;
  database: AccessDatabase | null;
  site?: { user: string; password: string; title: string };
  owner?: { email: string; password: string };
}

/** The client of `instance`'s type; it reads `instance` at each call (a password or URL may change). */
export async function clientOf(ctx: ClientContext, instance: Reachable, id: string): Promise<InstanceClient> {
  const jar = path.join(ctx.work, `${id}.jar`);
  const required = <T>(value: T | null | undefined, what: string): T => {
    if (value === null || value === undefined) throw new Error(`the API gave no ${what}`);
    return value;
  };
  switch (instance.type) {
    case 'mysql':
    case 'postgresql':
      return sqlClient(ctx, instance.type, () => required(instance.database, 'database credentials'));
    case 'wordpress':
      return wordpressClient(
        ctx,
        () => ({ url: required(instance.url, 'URL'), ...required(instance.site, 'site login') }),
        jar,
      );
    case 'n8n':
      return n8nClient(
        ctx,
        () => ({ url: required(instance.url, 'URL'), ...required(instance.owner, 'owner login') }),
        jar,
      );
    case 'mongodb': {
      const missing = async (): Promise<never> => {
        throw new Error('no MongoDB client on this host (mongosh): the contract cannot check MongoDB yet');
      };
      return { works: missing, refused: missing, mark: missing, marks: missing };
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// SFTP and phpMyAdmin

export interface SftpLogin {
  host: string;
  port: number;
  user: string;
  password: string;
}

/**
 * Runs OpenSSH's sftp in batch mode in a folder of its own under the work folder (with `files` written
 * there first, to put); answers the folder too.
 */
export async function sftp(
  ctx: ClientContext,
  login: SftpLogin,
  commands: string[],
  folder = 'sftp',
  files: Record<string, string> = {},
) {
  const local = path.join(ctx.work, folder);
  await mkdir(local, { recursive: true });
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(local, name), content);
  const result = await sftpBatch(login, commands, local);
  return { ...result, local };
}

export const readLocal = (file: string) => readFile(file, 'utf8');

const formField = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

/**
 * Signs in to phpMyAdmin at `link` with the database's own login as a browser would (its form, token
 * and session cookie), then opens the database's page; throws saying what failed.
 */
export async function phpMyAdminSignIn(ctx: ClientContext, link: string, db: AccessDatabase, jar: string) {
  const cookies = ['-c', jar, '-b', jar];
  const base = link.replace(/\/$/, '');
  const page = await curl([...reach(ctx, link), ...cookies, `${base}/`]);
  if (page.status !== 200 || !page.body.includes('pma_username'))
    throw new Error(`phpMyAdmin's login page answered ${page.status} ${page.stderr}`);
  const login = await curl([
    ...reach(ctx, link),
    ...cookies,
    ...['--data-urlencode', `pma_username=${db.user}`, '--data-urlencode', `pma_password=${db.password}`],
    ...['--data-urlencode', `token=${formField(page.body, 'token')}`],
    ...['--data-urlencode', `set_session=${formField(page.body, 'set_session')}`],
    ...['--data', 'server=1&route=/&lang=en'],
    `${base}/index.php?route=/`,
  ]);
  if (login.status !== 302) throw new Error(`phpMyAdmin's login answered ${login.status}`);
  const structure = await curl([
    ...reach(ctx, link),
    '-b',
    jar,
    `${base}/index.php?route=/database/structure&db=${encodeURIComponent(db.name)}`,
  ]);
  if (structure.status !== 200 || structure.body.includes('name="pma_username"'))
    throw new Error(`the database's page answered ${structure.status} without the session`);
}
