import { DEFAULT_REGION, REGIONS, type RegionId } from '@berth/openapi/rules';
import type { Instance, InstanceCapability, RegionAvailability } from '../../api/instances.queries.ts';

/**
 * What customers deploy and where, as the screens show it.
 * Pure data and small pure functions, tested in instance-catalog.test.ts.
 */

// Every region with its label: the server's own list (@berth/openapi/rules).
export { REGIONS, type RegionId } from '@berth/openapi/rules';

/** The six regions of the dashboard's deploy modal. */
export const DASHBOARD_REGIONS: readonly RegionId[] = [
  'us-east-1',
  'us-west-2',
  'eu-west-1',
  'eu-central-1',
  'ap-south-1',
  'ap-southeast-1',
];

export { DEFAULT_REGION };

export const regionLabel = (id: string): string => REGIONS.find((region) => region.id === id)?.label ?? id;

/** Whether the server places instances in a region (while its answer is loading: assume so). */
export const regionOffered = (regions: readonly RegionAvailability[] | undefined, id: string): boolean =>
  regions?.find((region) => region.id === id)?.available ?? true;

/** Why regions are not offered, each reason once (usually one: "This server runs … only"). */
export const regionNotes = (regions: readonly RegionAvailability[] | undefined): string[] => [
  ...new Set(
    (regions ?? []).flatMap((region) => (region.available || !region.reason ? [] : [region.reason])),
  ),
];

/** The region a form starts on: the default when it is offered, else the first that is. */
export const firstOfferedRegion = (regions: readonly RegionAvailability[] | undefined): RegionId =>
  (
    regions?.find((region) => region.id === DEFAULT_REGION && region.available) ??
    regions?.find((region) => region.available)
  )?.id ?? DEFAULT_REGION;

/** Defaults. */
export const DEFAULT_INSTANCE_NAME = 'My Instance';
export const DEFAULT_DATABASE_PORT = 3306;
export const QUICK_DEPLOY_RESOURCES = { memory: '4GB', cpu: '2' } as const;

export type InstanceTypeId = InstanceCapability['type'];
export type Category = InstanceCapability['category'];

export interface TypeChoice {
  /** The server's type id; absent for types that are announced only ('Soon'). */
  type?: InstanceTypeId;
  name: string;
  category: Category;
  description: string;
  /** What the Deployment Information box says about this type. */
  deploymentInfo?: string;
}

const DATABASE_INFO =
  'Your database is ready within a minute. You then get its connection details: host, port, database name, username and password.';

/** The choices of the Deploy New Instance page, per category, in the order shown. */
export const TYPE_CHOICES: Readonly<Record<Category, readonly TypeChoice[]>> = {
  application: [
    {
      type: 'wordpress',
      name: 'WordPress',
      category: 'application',
      description: 'Websites and blogs on the most popular content management system.',
      deploymentInfo:
        'Your WordPress site is ready in 30–60 seconds. You get a site URL and an Admin Panel URL.',
    },
    {
      type: 'n8n',
      name: 'n8n',
      category: 'application',
      description: 'Workflow automation that connects your apps and services.',
      deploymentInfo: 'Your n8n instance is ready in 2–50 seconds.',
    },
    {
      name: 'Node-RED',
      category: 'application',
      description: 'Low-code programming for event-driven applications.',
    },
    {
      name: 'Nextcloud',
      category: 'application',
      description: 'Files, calendars and contacts in your own cloud.',
    },
  ],
  database: [
    {
      type: 'mysql',
      name: 'MySQL',
      category: 'database',
      description: 'The popular open-source relational database (served by MariaDB).',
      deploymentInfo: DATABASE_INFO,
    },
    {
      type: 'postgresql',
      name: 'PostgreSQL',
      category: 'database',
      description: 'The advanced open-source relational database.',
      deploymentInfo: DATABASE_INFO,
    },
    {
      type: 'mongodb',
      name: 'MongoDB',
      category: 'database',
      description: 'The document database for JSON-like data.',
      deploymentInfo: DATABASE_INFO,
    },
  ],
};

export const CATEGORY_LABELS: Record<Category, string> = {
  application: 'Applications',
  database: 'Databases',
};

export type ChoiceAvailability = { available: true } | { available: false; reason: string };

/** The types whose whole deploy form this app has (all five). */
const FORM_READY_TYPES: readonly InstanceTypeId[] = ['mysql', 'postgresql', 'mongodb', 'wordpress', 'n8n'];

/**
 * Whether a choice can be deployed here: announced types say 'Soon'; the others follow the server's
 * capabilities, with its reason (empty while the capabilities load); types without their form yet
 * say 'Coming soon'.
 */
export function availabilityOf(
  choice: TypeChoice,
  capabilities: readonly InstanceCapability[] | undefined,
): ChoiceAvailability {
  if (!choice.type) return { available: false, reason: 'Soon' };
  const capability = capabilities?.find((entry) => entry.type === choice.type);
  if (!capability) return { available: false, reason: capabilities ? 'Not offered by this server' : '' };
  if (!capability.available)
    return { available: false, reason: capability.reason ?? 'Not available on this server' };
  return FORM_READY_TYPES.includes(choice.type)
    ? { available: true }
    : { available: false, reason: 'Coming soon' };
}

/** The category to open the page on: the first one with something deployable, else Applications. */
export function defaultCategory(capabilities: readonly InstanceCapability[] | undefined): Category {
  const deployable = (category: Category) =>
    TYPE_CHOICES[category].some((choice) => availabilityOf(choice, capabilities).available);
  if (deployable('application')) return 'application';
  return deployable('database') ? 'database' : 'application';
}

/** The dashboard's quick deploy: the first database type the server can deploy, MySQL first. */
export function quickDeployChoice(
  capabilities: readonly InstanceCapability[] | undefined,
): TypeChoice | undefined {
  return TYPE_CHOICES.database.find((choice) => availabilityOf(choice, capabilities).available);
}

const DATABASE_WORDS = /mysql|mongo|postgres|mariadb|redis|database/i;

/**
 * A database instance: its category, a type naming a database engine, or a database flag in
 * its metadata.
 */
export function isDatabase(instance: Pick<Instance, 'type' | 'category' | 'metadata'>): boolean {
  const { metadata } = instance;
  return (
    instance.category === 'database' ||
    DATABASE_WORDS.test(instance.type) ||
    Boolean(metadata.database || metadata.mysql || metadata.postgres || metadata.mongo)
  );
}

/** The type badge of cards and headers: WordPress, n8n or Database. */
export function typeBadge(instance: Pick<Instance, 'type' | 'category' | 'metadata'>): string {
  if (isDatabase(instance)) return 'Database';
  return instance.type;
}

/** Database types whose password the user can change here. */
const PASSWORD_CHANGE_TYPES: readonly string[] = ['MySQL', 'MongoDB', 'PostgreSQL'];

export const canChangePassword = (type: string): boolean => PASSWORD_CHANGE_TYPES.includes(type);

export const STATUS_LABELS: Record<Instance['status'], string> = {
  deploying: 'Deploying',
  running: 'Running',
  suspended: 'Suspended',
  error: 'Error',
  deleting: 'Deleting',
  restoring: 'Restoring',
};

/** Running green (emphasised), deploying yellow, error red, anything else neutral. */
export function statusColor(status: Instance['status']): 'success' | 'warning' | 'error' | 'default' {
  if (status === 'running') return 'success';
  if (status === 'deploying' || status === 'restoring') return 'warning';
  if (status === 'error') return 'error';
  return 'default';
}

/** Whether the instance has a custom domain (WordPress sites only). */
export const hasCustomDomain = (instance: Pick<Instance, 'customDomain'>): boolean =>
  Boolean(instance.customDomain);

/** What a suspended instance's screens say. */
export const DELETE_DISABLED = 'Your subscription is inactive. Deleting instances is disabled.';
export const PASSWORD_CHANGE_DISABLED = 'Subscription inactive — changing passwords is disabled.';
export const CANNOT_CREATE = 'Cannot create instance. Please check your subscription status.';
/** Why Open and Admin are disabled while the subscription is inactive. */
export const LINKS_DISABLED = 'Your subscription is inactive.';

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export const formatDate = (iso: string): string => DATE.format(new Date(iso));

const BACKUP_TYPES: readonly string[] = ['WordPress', 'MySQL', 'PostgreSQL', 'n8n'];

/** Whether the instance's type has backups (MongoDB has none yet). */
export const hasBackups = (type: string): boolean => BACKUP_TYPES.includes(type);

/** What restoring replaces, in the confirmation: the customer's data is gone past this point. */
export function restoreWarning(type: string, name: string): string {
  if (type === 'WordPress') return `The site's database and files are replaced by those of “${name}”.`;
  if (type === 'n8n')
    return `The instance's workflows, credentials and settings are replaced by those of “${name}”.`;
  return `The database's contents are replaced by those of “${name}”: anything written since is gone.`;
}

/** What suspended backups, domains and SSL say. */
export const BACKUP_CREATE_DISABLED = 'Your subscription is inactive. Creating backups is disabled.';
export const BACKUP_RESTORE_DISABLED = 'Restoring backups is disabled.';
export const BACKUP_DELETE_DISABLED = 'Deleting backups is disabled.';
export const DOMAIN_ADD_DISABLED = 'Adding domains is disabled.';
export const SSL_REQUEST_DISABLED = 'Your subscription is inactive. Requesting SSL is disabled.';

/** The SSL badge of a custom domain; none without one ('Not Configured'). */
export const SSL_LABELS = { Active: 'SSL Active', Pending: 'SSL Pending', FAILED: 'SSL Failed' } as const;

export function sslColor(status: keyof typeof SSL_LABELS): 'success' | 'warning' | 'error' {
  if (status === 'Active') return 'success';
  return status === 'FAILED' ? 'error' : 'warning';
}
export const DOMAIN_REMOVE_DISABLED = 'Your subscription is inactive. Removing domains is disabled.';

/** The spec's wording for a custom domain that is not attached yet. */
export const PENDING_ACTIVATION = 'A custom domain is pending activation until DNS is set up';

/** The ownership state of a custom domain, as a chip: attached domains need none. */
export const VERIFICATION_LABELS = {
  pending: 'Pending verification',
  verified: 'Verified',
  attached: 'Attached',
  failed: 'Verification failed',
} as const;

export function verificationColor(
  status: keyof typeof VERIFICATION_LABELS,
): 'success' | 'warning' | 'error' | 'info' {
  if (status === 'attached') return 'success';
  if (status === 'verified') return 'info';
  return status === 'failed' ? 'error' : 'warning';
}
