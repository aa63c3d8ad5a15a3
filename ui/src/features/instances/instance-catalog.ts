import {
  DATABASE_FLAGS,
  DEFAULT_REGION,
  type DeployFieldsOf,
  INSTANCE_TYPE_CATALOGUE,
  INSTANCE_TYPE_IDS,
  type InstanceTypeEntry,
  type InstanceTypeId,
  type InstanceTypeName,
  REGIONS,
  type RegionId,
} from '@berth/openapi/rules';
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
export const QUICK_DEPLOY_RESOURCES = { memory: '4GB', cpu: '2' } as const;

export type Category = InstanceTypeEntry['category'];

/**
 * The instance types Berth deploys come from one catalogue (@berth/openapi/rules), shared with the
 * server: a type added there is listed here with its name, description and deploy fields.
 */
const CATALOGUE_ENTRIES: readonly InstanceTypeEntry[] = INSTANCE_TYPE_IDS.map(
  (id) => INSTANCE_TYPE_CATALOGUE[id],
);

/** The catalogue's entry of a type id ('mysql'); undefined for anything else (no type chosen yet). */
export function entryOfId(type: string): InstanceTypeEntry | undefined {
  const id = INSTANCE_TYPE_IDS.find((known) => known === type);
  return id === undefined ? undefined : INSTANCE_TYPE_CATALOGUE[id];
}

/** The catalogue's entry of a type by the name instances carry ('MySQL'), or undefined. */
export const entryNamed = (name: string): InstanceTypeEntry | undefined =>
  CATALOGUE_ENTRIES.find((entry) => entry.name === name);

/** A site with an admin panel of its own (WordPress): the overview's site card and the Admin button. */
export const hasSiteAdmin = (type: string): boolean => entryNamed(type)?.deployFields === 'wordpressAdmin';

/** The port a database type's clients connect to by default (MySQL: 3306), or undefined. */
export const defaultPort = (name: string): number | undefined => entryNamed(name)?.connection?.port;

/** The names of the catalogue's applications ('WordPress', 'n8n'), in its order. */
export const APPLICATION_NAMES: readonly InstanceTypeName[] = INSTANCE_TYPE_IDS.filter(
  (id) => INSTANCE_TYPE_CATALOGUE[id].category === 'application',
).map((id) => INSTANCE_TYPE_CATALOGUE[id].name);

export interface TypeChoice {
  /** The server's type id; absent for types that are announced only ('Soon'). */
  type?: InstanceTypeId;
  name: string;
  category: Category;
  description: string;
  /** What the Deployment Information box says about this type. */
  deploymentInfo?: string;
  /** The fields the deploy form shows for this type besides name, description and region. */
  deployFields?: DeployFieldsOf;
}

/** The catalogue's types of a category, as deploy choices, in the catalogue's order. */
const catalogueChoices = (category: Category): TypeChoice[] =>
  INSTANCE_TYPE_IDS.filter((type) => INSTANCE_TYPE_CATALOGUE[type].category === category).map((type) => {
    const { name, description, deploymentInfo, deployFields } = INSTANCE_TYPE_CATALOGUE[type];
    return { type, name, category, description, deploymentInfo, deployFields };
  });

/** Applications announced on the deploy page ('Soon') that Berth does not deploy yet. */
const ANNOUNCED_APPLICATIONS: readonly TypeChoice[] = [
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
];

/** The choices of the Deploy New Instance page, per category, in the order shown. */
export const TYPE_CHOICES: Readonly<Record<Category, readonly TypeChoice[]>> = {
  application: [...catalogueChoices('application'), ...ANNOUNCED_APPLICATIONS],
  database: catalogueChoices('database'),
};

export const CATEGORY_LABELS: Record<Category, string> = {
  application: 'Applications',
  database: 'Databases',
};

export type ChoiceAvailability = { available: true } | { available: false; reason: string };

/**
 * Whether a choice can be deployed here: announced types say 'Soon'; the others follow the server's
 * capabilities, with its reason (empty while the capabilities load).
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
  return { available: true };
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

/**
 * A database instance: its category, a type the catalogue lists as a database, or a database flag in
 * its metadata.
 */
export function isDatabase(instance: Pick<Instance, 'type' | 'category' | 'metadata'>): boolean {
  const { metadata } = instance;
  return (
    instance.category === 'database' ||
    entryNamed(instance.type)?.category === 'database' ||
    metadata.database ||
    DATABASE_FLAGS.some((flag) => metadata[flag])
  );
}

/** The type badge of cards and headers: an application's name (WordPress, n8n) or Database. */
export function typeBadge(instance: Pick<Instance, 'type' | 'category' | 'metadata'>): string {
  return isDatabase(instance) ? 'Database' : instance.type;
}

/** Whether the user can change the password of a type (by name): the catalogue's databases. */
export const canChangePassword = (type: string): boolean => entryNamed(type)?.category === 'database';

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

/** What restoring replaces, in the confirmation (by the type's name): the customer's data is gone past this point. */
export function restoreWarning(type: string, backup: string): string {
  const entry = entryNamed(type);
  return entry
    ? entry.restoreWarning(backup)
    : `The instance's data is replaced by that of “${backup}”: anything written since is gone.`;
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
