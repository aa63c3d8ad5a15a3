// Rules the server enforces and the screens check before sending, in one copy: the server's schemas and
// the UI's validation both import this file (`@berth/openapi/rules`), so they cannot drift apart.
// Plain data and pure functions only: no imports, safe for the browser and for Node.

/** The five checks of a new account password; at least four must pass. */
export interface PasswordCheck {
  id: 'length' | 'lowercase' | 'uppercase' | 'digit' | 'special';
  label: string;
  test(password: string): boolean;
}

export const PASSWORD_CHECKS: readonly PasswordCheck[] = [
  { id: 'length', label: 'At least 8 characters', test: (p) => p.length >= 8 },
  { id: 'lowercase', label: 'One lowercase letter', test: (p) => /[a-z]/.test(p) },
  { id: 'uppercase', label: 'One uppercase letter', test: (p) => /[A-Z]/.test(p) },
  { id: 'digit', label: 'One number', test: (p) => /\d/.test(p) },
  { id: 'special', label: 'One special character', test: (p) => /[^A-Za-z0-9]/.test(p) },
];

export const MIN_PASSWORD_SCORE = 4;

/** How many of the five checks pass. */
export function passwordScore(password: string): number {
  return PASSWORD_CHECKS.filter((check) => check.test(password)).length;
}

export const isStrongEnough = (password: string): boolean => passwordScore(password) >= MIN_PASSWORD_SCORE;

/** The one message for a password failing the checks (registration, change and reset alike). */
export const PASSWORD_RULES_MESSAGE = 'Password must meet all requirements below';

/** Lengths of the account and instance fields (characters, after trimming). */
export const FIELD_LIMITS = {
  personName: 50,
  username: { min: 3, max: 30 },
  companyName: { min: 2, max: 100 },
  email: 254,
  accountPassword: 256,
  instanceName: 100,
  instanceDescription: 500,
  databasePassword: { min: 8, max: 128 },
} as const;

/** A database password: FIELD_LIMITS.databasePassword long, without control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;
export const DATABASE_PASSWORD_MESSAGE =
  'A database password must be 8 to 128 characters without control characters';

/** The regions customers can deploy to, with the names the screens show. */
export const REGIONS = [
  { id: 'us-east-1', label: 'US East (N. Virginia)' },
  { id: 'us-west-2', label: 'US West (Oregon)' },
  { id: 'eu-west-1', label: 'EU West (Ireland)' },
  { id: 'eu-central-1', label: 'EU Central (Frankfurt)' },
  { id: 'eu-north-1', label: 'EU North (Stockholm)' },
  { id: 'ap-south-1', label: 'AP South (Mumbai)' },
  { id: 'ap-southeast-1', label: 'Singapore' },
  { id: 'ap-southeast-2', label: 'Sydney' },
  { id: 'ap-northeast-1', label: 'Tokyo' },
  { id: 'ap-northeast-2', label: 'Seoul' },
  { id: 'sa-east-1', label: 'São Paulo' },
  { id: 'me-central-1', label: 'Middle East (UAE)' },
  { id: 'af-south-1', label: 'Africa (Cape Town)' },
] as const;

export type RegionId = (typeof REGIONS)[number]['id'];
export const DEFAULT_REGION: RegionId = 'us-east-1';

/** A region's name as customers read it (its id when it is none of ours). */
export const regionLabel = (id: string): string => REGIONS.find((region) => region.id === id)?.label ?? id;

/** Why customers cannot deploy into a region, as both drivers say it. */
export const REGION_UNAVAILABLE = {
  /** A one-host install serves the region it runs in only. */
  otherHost: (servedId: string) => `This server runs instances in ${regionLabel(servedId)} only`,
  /** A swarm install has no swarm configured for the region. */
  noServers: 'No servers in this region yet',
  /** The region's swarm does not answer, or none of its servers is up. */
  down: (id: string, why: string) => `${regionLabel(id)} is unavailable right now: ${why}`,
} as const;

/** A custom domain: labels of letters, digits and hyphens, a dot, a TLD of two letters or more; no scheme. */
export const DOMAIN_PATTERN = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
export const INVALID_DOMAIN_MESSAGE = 'Please enter a valid domain name';

/** A WordPress site's PHP version: digits.digits with an optional .digits. */
export const PHP_VERSION_PATTERN = /^\d+\.\d+(\.\d+)?$/;
export const INVALID_PHP_VERSION_MESSAGE = 'Please enter a valid PHP version (e.g., 8.2, 7.4, 8.1.5)';

/** n8n's own rule for the owner account's password (its OwnerSetupRequestDto). */
export const N8N_PASSWORD = {
  min: 8,
  max: 64,
  /** Each must match: a digit, a capital letter. */
  patterns: [/\d/, /[A-Z]/],
  message:
    'The n8n owner password must be 8 to 64 characters with at least one number and one capital letter',
} as const;

export const isN8nPassword = (password: string): boolean =>
  password.length >= N8N_PASSWORD.min &&
  password.length <= N8N_PASSWORD.max &&
  N8N_PASSWORD.patterns.every((pattern) => pattern.test(password));

/** The price of a year: monthly × 12 × (1 − discount), rounded to cents. */
export function yearlyPrice(monthly: number, discount: number): number {
  return Math.round(monthly * 12 * (1 - discount) * 100) / 100;
}

/** A yearly price as its monthly equivalent, rounded to cents. */
export const monthlyEquivalent = (yearly: number): number => Math.round((yearly / 12) * 100) / 100;
/**
 * How soon support answers a ticket, in hours, by plan: what the pricing, legal and help pages promise,
 * and the due time the help desk records on each ticket. Accounts without a running paid plan (a trial,
 * a lapsed plan) are answered within Starter's time.
 */
export const SUPPORT_RESPONSE_HOURS = { starter: 24, pro: 4 } as const;

/** The plan a ticket is answered by: what the customer had when they sent it. */
export type SupportPlan = 'free' | 'starter' | 'pro';

export const supportResponseHours = (plan: SupportPlan): number =>
  plan === 'pro' ? SUPPORT_RESPONSE_HOURS.pro : SUPPORT_RESPONSE_HOURS.starter;

/**
 * An instance whose server is gone: its status is `error` and its message begins with one of these (its
 * server stopped answering, was lost for good, or a deploy elsewhere failed). A backup can still be
 * restored into it: it is deployed again first.
 */
export const SERVER_GONE = {
  down: 'Waiting for its server to come back',
  lost: 'Its server was lost',
  notDeployedAgain: 'Restore failed: the instance could not be deployed again',
} as const;

export const serverGone = (status: string, message: string | null): boolean =>
  status === 'error' &&
  message !== null &&
  Object.values(SERVER_GONE).some((start) => message.startsWith(start));

/**
 * An e-mail address as every form, the API and the drivers check it: one @, no spaces, a dot in the
 * domain (each place says "Invalid email" or its own words; the mail server has the last word).
 */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A backup's name (required) and note (optional), as the form and the API allow them. */
export const BACKUP_FIELDS = { nameMax: 100, noteMax: 500 } as const;

/** The WordPress admin account a deploy creates: what the deploy form and the API allow. */
export const WORDPRESS_ADMIN = {
  titleMax: 200,
  usernameMax: 60,
  passwordMin: 8,
  passwordMax: 128,
  passwordShort: 'Min 8 characters',
  passwordLong: 'Admin password too long',
} as const;

/**
 * The DNS record that proves a customer controls a custom domain: a TXT record named
 * `_berth-verify.<domain>` holding `berth-verify=<token>` (the token is shown on the instance page).
 */
export const DOMAIN_VERIFICATION = { name: '_berth-verify', valuePrefix: 'berth-verify=' } as const;

/**
 * What an instance can be deployed with: its memory and its vCPUs, enforced by the server (a control
 * group per instance on one host, container limits on a swarm). The spec's quick deploy sends the
 * defaults, 4GB and 2.
 */
export const MEMORY_CHOICES = ['256MB', '512MB', '1GB', '2GB', '4GB'] as const;
export const CPU_CHOICES = ['0.25', '0.5', '1', '2'] as const;
export const DEFAULT_MEMORY = '4GB';
export const DEFAULT_CPU = '2';
export const MEMORY_MESSAGE = `Memory must be one of ${MEMORY_CHOICES.join(', ')}`;
export const CPU_MESSAGE = `CPU must be one of ${CPU_CHOICES.join(', ')} vCPU`;

/** The least each type (by id) runs with: n8n's editor and task runner need 1GB and half a core. */
export const MINIMUM_RESOURCES: Record<string, { memoryMb: number; cpus: number } | undefined> = {
  n8n: { memoryMb: 1024, cpus: 0.5 },
};

/** '512MB', '4GB', '1.5 gb' → MiB; undefined when it does not read as memory. */
export function memoryMbOf(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(MB|GB)$/i.exec(text.trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  const mb = Math.round(match[2]?.toUpperCase() === 'GB' ? amount * 1024 : amount);
  return mb > 0 ? mb : undefined;
}

/** The choice `text` names ('4096MB' and '4gb' name '4GB'), or undefined when it is not one. */
export function memoryChoice(text: string): (typeof MEMORY_CHOICES)[number] | undefined {
  const mb = memoryMbOf(text);
  return MEMORY_CHOICES.find((choice) => memoryMbOf(choice) === mb);
}

/** The choice `text` names ('2.0' names '2'), or undefined when it is not one. */
export function cpuChoice(text: string): (typeof CPU_CHOICES)[number] | undefined {
  const cpus = Number(text.trim());
  return text.trim() === '' ? undefined : CPU_CHOICES.find((choice) => Number(choice) === cpus);
}

/**
 * The defaults as the drivers count them (MiB, vCPUs): what an instance runs with when it was sold
 * nothing else (both drivers; the API fills the same defaults in).
 */
export const DEFAULT_RESOURCES: { readonly memoryMb: number; readonly cpus: number } = Object.freeze({
  memoryMb: memoryMbOf(DEFAULT_MEMORY) ?? Number.NaN,
  cpus: Number(DEFAULT_CPU),
});

/** Why a type cannot run with these resources (below its minimum), or undefined. */
export function resourcesProblem(type: string, memoryMb: number, cpus: number): string | undefined {
  const least = MINIMUM_RESOURCES[type];
  if (!least || (memoryMb >= least.memoryMb && cpus >= least.cpus)) return undefined;
  return `${type} needs at least ${least.memoryMb / 1024}GB of memory and ${least.cpus} vCPU`;
}

/** What the deploy form and the API ask of a type besides name, region and resources. */
export type DeployFieldsOf = 'none' | 'wordpressAdmin' | 'n8nOwner';

/** How clients connect to a database type. */
export interface DatabaseConnection {
  scheme: string;
  port: number;
  /** The `metadata` flag instances of this type carry. */
  flag: string;
  /**
   * The connection string's TLS options: the one that verifies the server's certificate and host
   * name, the one naming the CA file, and what that one says to use the client's public CAs (none
   * where the client has no such word, and then the option is left out).
   */
  tls: { verify: string; caFile: string; publicCas: string | null };
}

/** One instance type as customers meet it: its name, where it is listed, what deploying it asks. */
export interface InstanceTypeEntry {
  /** The name customers read (the API's `type` field). */
  name: string;
  category: 'application' | 'database';
  /** The sentence under its name on the deploy page. */
  description: string;
  /** What the Deployment Information box says about it. */
  deploymentInfo: string;
  /** The fields the deploy form shows for it, and the API requires. */
  deployFields: DeployFieldsOf;
  /** Other spellings requests may use for it besides its id and name (any case). */
  aliases?: readonly string[];
  /** Databases: how clients connect (the connection string's scheme, the default port) and its flag. */
  connection?: DatabaseConnection;
  /** What it means once it has filled its database, in the customer's words (the notification's tail). */
  fullWords: string;
  /** What restoring the backup named `backup` replaces, as the confirmation warns. */
  restoreWarning(backup: string): string;
}

const RELATIONAL_FULL =
  'new data is refused until you free space. Deleted rows leave their room inside the tables; empty (TRUNCATE) or drop tables to get below the size.';

const DATABASE_RESTORE = (backup: string) =>
  `The database's contents are replaced by those of “${backup}”: anything written since is gone.`;

const DATABASE_READY =
  'Your database is ready within a minute. You then get its connection details: host, port, database name, username and password.';

/**
 * Every instance type Berth deploys, by id, in the order the screens list them: the one catalogue the
 * server's kinds (modules/instances/kinds/) and the UI read. A type is added here, as a kind on the
 * server, and as an engine per driver (ARCHITECTURE.md, "Adding an instance type").
 */
export const INSTANCE_TYPE_CATALOGUE = {
  mysql: {
    name: 'MySQL',
    category: 'database',
    description: 'The popular open-source relational database (served by MariaDB).',
    deploymentInfo: DATABASE_READY,
    deployFields: 'none',
    connection: {
      scheme: 'mysql',
      port: 3306,
      flag: 'mysql',
      tls: { verify: 'ssl-mode=VERIFY_IDENTITY', caFile: 'ssl-ca', publicCas: null },
    },
    fullWords: RELATIONAL_FULL,
    restoreWarning: DATABASE_RESTORE,
  },
  postgresql: {
    name: 'PostgreSQL',
    category: 'database',
    description: 'The advanced open-source relational database.',
    deploymentInfo: DATABASE_READY,
    deployFields: 'none',
    aliases: ['postgres'],
    connection: {
      scheme: 'postgresql',
      port: 5432,
      flag: 'postgres',
      tls: { verify: 'sslmode=verify-full', caFile: 'sslrootcert', publicCas: 'system' },
    },
    fullWords: RELATIONAL_FULL,
    restoreWarning: DATABASE_RESTORE,
  },
  mongodb: {
    name: 'MongoDB',
    category: 'database',
    description: 'The document database for JSON-like data.',
    deploymentInfo: DATABASE_READY,
    deployFields: 'none',
    connection: {
      scheme: 'mongodb',
      port: 27017,
      flag: 'mongo',
      tls: { verify: 'tls=true', caFile: 'tlsCAFile', publicCas: null },
    },
    fullWords:
      'new data is refused until you free space: drop the collections you no longer need to get below the size.',
    restoreWarning: DATABASE_RESTORE,
  },
  wordpress: {
    name: 'WordPress',
    category: 'application',
    description: 'Websites and blogs on the most popular content management system.',
    deploymentInfo:
      'Your WordPress site is ready in 30–60 seconds. You get a site URL and an Admin Panel URL.',
    deployFields: 'wordpressAdmin',
    fullWords:
      'the site can no longer save new posts, comments or settings. Please contact support to free space.',
    restoreWarning: (backup) => `The site's database and files are replaced by those of “${backup}”.`,
  },
  n8n: {
    name: 'n8n',
    category: 'application',
    description: 'Workflow automation that connects your apps and services.',
    deploymentInfo: 'Your n8n instance is ready in 2–50 seconds.',
    deployFields: 'n8nOwner',
    fullWords: 'n8n can no longer save workflows or executions. Delete old executions to free space.',
    restoreWarning: (backup) =>
      `The instance's workflows, credentials and settings are replaced by those of “${backup}”.`,
  },
} as const satisfies Record<string, InstanceTypeEntry>;

export type InstanceTypeId = keyof typeof INSTANCE_TYPE_CATALOGUE;
export type InstanceTypeName = (typeof INSTANCE_TYPE_CATALOGUE)[InstanceTypeId]['name'];

/** The type ids in the catalogue's order. */
export const INSTANCE_TYPE_IDS = Object.keys(INSTANCE_TYPE_CATALOGUE) as InstanceTypeId[];

/** The `metadata` flags database instances carry ('mysql', 'postgres', 'mongo'), in the catalogue's order. */
export const DATABASE_FLAGS = INSTANCE_TYPE_IDS.flatMap((id) => {
  const entry = INSTANCE_TYPE_CATALOGUE[id];
  return 'connection' in entry ? [entry.connection.flag] : [];
});
export type DatabaseFlag = (typeof DATABASE_FLAGS)[number];

/** What /api/v1's create deploys when its body names no type (the spec's default). */
export const PUBLIC_API_DEFAULT_TYPE: InstanceTypeId = 'n8n';

/** A site's own database: WordPress keeps its content in MySQL (MariaDB). */
export const SITE_DATABASE_CONNECTION = INSTANCE_TYPE_CATALOGUE.mysql.connection;
