import { createRoute, z } from '@hono/zod-openapi';
import { errorResponse, json, MessageSchema } from '../../lib/openapi-schemas.ts';
import { requireAdmin, requireUser } from '../../middleware/auth.ts';
import {
  BackupBodySchema,
  BackupCreatedSchema,
  BackupDownloadSchema,
  BackupListSchema,
  BackupParamsSchema,
  SiteStorageSchema,
} from './instance-backups.schemas.ts';
import { DomainBodySchema, SslResultSchema } from './instance-domains.schemas.ts';
import { DRIVER_FAILED } from './instances.context.ts';
import {
  CapabilitiesSchema,
  ChangePasswordBodySchema,
  DatabaseAccessSchema,
  DeployBodySchema,
  InstanceChangeSchema,
  InstanceIdParamsSchema,
  InstanceListSchema,
  InstanceResultSchema,
  ListQuerySchema,
  OperatorCapabilitiesSchema,
  TypeQuerySchema,
  UpdateBodySchema,
} from './instances.schemas.ts';

const tags = ['Instances'];
const signedIn = { security: [{ bearerAuth: [] }], middleware: requireUser };
const notSignedIn = errorResponse('Not signed in');
const notFound = errorResponse('No such instance of this user (`not_found`, "Instance not found")');

export const list = createRoute({
  method: 'get',
  path: '/api/instances',
  operationId: 'instances.list',
  tags,
  summary: 'A page of the signed-in user’s instances, newest first, optionally searched by name',
  ...signedIn,
  request: { query: ListQuerySchema },
  responses: {
    200: json(InstanceListSchema, 'Instances, how many match, and how many pages'),
    400: errorResponse('page or limit out of range'),
    401: notSignedIn,
  },
});

export const capabilities = createRoute({
  method: 'get',
  path: '/api/instances/capabilities',
  operationId: 'instances.capabilities',
  tags,
  summary: 'Which instance types this server can deploy now, and why not the others',
  ...signedIn,
  responses: { 200: json(CapabilitiesSchema, 'Every type, available or with the reason'), 401: notSignedIn },
});

export const operatorCapabilities = createRoute({
  method: 'get',
  path: '/api/admin/capabilities',
  operationId: 'admin.capabilities',
  tags: ['Admin'],
  summary:
    'Which instance types this server can deploy, with the operator’s reason and fix for the others (admin)',
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    200: json(OperatorCapabilitiesSchema, 'Every type: the customer’s reason and the operator’s detail'),
    401: notSignedIn,
    403: errorResponse('Not an admin'),
  },
});

export const deploy = createRoute({
  method: 'post',
  path: '/api/instances/deploy',
  operationId: 'instances.deploy',
  tags,
  summary: 'Deploy a new instance (asynchronous: it starts as `deploying`)',
  description:
    'Answers at once with the new instance in status `deploying`; a job creates it and the live stream sends `event: instance` when it is `running` (or `error`). Database credentials then come from GET /api/instances/{id}/access.',
  ...signedIn,
  request: { body: { ...json(DeployBodySchema, 'What to deploy, and where'), required: true } },
  responses: {
    202: json(InstanceChangeSchema, '"Instance deployment initiated"'),
    400: errorResponse('A field breaks a rule'),
    401: notSignedIn,
    403: errorResponse(
      'The plan allows no more instances, or the subscription is inactive (`plan_limit`, "Cannot create instance. Please check your subscription status.")',
    ),
    409: errorResponse('The type cannot be deployed on this server (`conflict`; `details.reason` says why)'),
  },
});

export const getOne = createRoute({
  method: 'get',
  path: '/api/instances/{id}',
  operationId: 'instances.get',
  tags,
  summary: 'One of the signed-in user’s instances',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: { 200: json(InstanceResultSchema, 'The instance'), 401: notSignedIn, 404: notFound },
});

export const update = createRoute({
  method: 'put',
  path: '/api/instances/{id}',
  operationId: 'instances.update',
  tags,
  summary: 'Rename an instance or change its description',
  ...signedIn,
  request: {
    params: InstanceIdParamsSchema,
    body: { ...json(UpdateBodySchema, 'Name and description'), required: true },
  },
  responses: {
    200: json(InstanceChangeSchema, '"Instance updated successfully"'),
    400: errorResponse('A field breaks a rule'),
    401: notSignedIn,
    404: notFound,
    409: errorResponse('The instance is being deleted'),
  },
});

export const remove = createRoute({
  method: 'delete',
  path: '/api/instances/{id}',
  operationId: 'instances.remove',
  tags,
  summary: 'Delete an instance and its data (asynchronous: it becomes `deleting`, then is gone)',
  ...signedIn,
  request: { params: InstanceIdParamsSchema, query: TypeQuerySchema },
  responses: {
    202: json(InstanceChangeSchema, '"Instance deletion initiated"'),
    401: notSignedIn,
    403: errorResponse(
      'The subscription is inactive (`subscription_inactive`, "Your subscription is inactive. Deleting instances is disabled.")',
    ),
    404: notFound,
  },
});

export const access = createRoute({
  method: 'get',
  path: '/api/instances/{id}/access',
  operationId: 'instances.access',
  tags,
  summary: 'Connection details of a database instance, or of a WordPress site’s database and SFTP login',
  description:
    '202 while the instance is still being deployed (poll again: the UI tries 10 times, 2 s apart); 200 with the credentials once it has been deployed.',
  ...signedIn,
  request: { params: InstanceIdParamsSchema, query: TypeQuerySchema },
  responses: {
    200: json(
      DatabaseAccessSchema,
      'Host, port, database name, user, password and a connection string; for WordPress also `sftp`',
    ),
    202: json(MessageSchema, '"Preparing credentials... This may take a moment."'),
    401: notSignedIn,
    404: notFound,
    409: errorResponse('n8n, being deleted, or its deploy failed (no credentials)'),
  },
});

export const changePassword = createRoute({
  method: 'post',
  path: '/api/instances/{id}/password',
  operationId: 'instances.changePassword',
  tags,
  summary: 'Set a new password for a database instance (MySQL, PostgreSQL; MongoDB where available)',
  description:
    'Waits up to about 10 s for the change: 200 once the new password works and the old one no longer does (live sessions are closed), 202 if it is still being applied.',
  ...signedIn,
  request: {
    params: InstanceIdParamsSchema,
    body: {
      ...json(ChangePasswordBodySchema, 'The type of the instance and the new password'),
      required: true,
    },
  },
  responses: {
    200: json(MessageSchema, '"{type} password updated", e.g. "MySQL password updated"'),
    202: json(MessageSchema, '"Password change initiated": still being applied'),
    400: errorResponse('Not a database type, a different type, or the password breaks the rule'),
    401: notSignedIn,
    403: errorResponse(
      'The subscription is inactive (`subscription_inactive`, "Subscription inactive — changing passwords is disabled.")',
    ),
    404: notFound,
    409: errorResponse('The instance is not deployed (yet) or is being deleted'),
    502: errorResponse('The database server refused the change (`operation_failed`)'),
  },
});

const inactive = (message: string) =>
  errorResponse(`The subscription is inactive (\`subscription_inactive\`, "${message}")`);
const notDeployed = errorResponse('The instance is still deploying, was never deployed, or is being deleted');
/** A synchronous driver call failed on the host: the spec's message, the details in the server log. */
const driverFailed = (message: string) =>
  errorResponse(
    `The host failed the operation (\`operation_failed\`, "${message}"; \`details.requestId\` names the server log entry)`,
  );

export const addDomain = createRoute({
  method: 'post',
  path: '/api/instances/{id}/domain',
  operationId: 'instances.addDomain',
  tags,
  summary: 'Add a custom domain to a WordPress site (pending until a DNS TXT record proves ownership)',
  description:
    'The domain is recorded as `pending` with `customDomain.verification.record`: the TXT record (`_berth-verify.<domain>` = `berth-verify=<token>`) to add at the domain’s DNS provider. Once the record is there (checked at once, in the background, and by POST /domain/verify) the domain is `verified` and then `attached`: the front door serves it over HTTPS and WordPress’ own address follows. The certificate is Pending until DNS points at this platform (an A record, or ALIAS/flattened CNAME, for an apex domain; a CNAME for a subdomain) and it is issued; see GET /ssl. A domain it replaces is detached.',
  ...signedIn,
  request: {
    params: InstanceIdParamsSchema,
    body: { ...json(DomainBodySchema, 'The domain, without http(s)://'), required: true },
  },
  responses: {
    200: json(InstanceChangeSchema, '"Custom domain added successfully"'),
    400: errorResponse(
      '"Domain is required", "Please enter a valid domain name", or not a WordPress instance',
    ),
    401: notSignedIn,
    403: inactive('Adding domains is disabled.'),
    404: notFound,
    409: errorResponse(
      'Verified or attached by another account ("The domain … is already in use by another account"), or the instance is not deployed',
    ),
    502: driverFailed(DRIVER_FAILED.addDomain),
  },
});

export const verifyDomain = createRoute({
  method: 'post',
  path: '/api/instances/{id}/domain/verify',
  operationId: 'instances.verifyDomain',
  tags,
  summary: 'Check the custom domain’s TXT record now, and attach the domain when it proves ownership',
  description:
    'Looks up `_berth-verify.<domain>` now. `message` says what was found; `instance.customDomain.verification` has the new state (`attached` when the site answers on the domain now, `verified` when it is attached once the site runs, `pending`/`failed` with the reason).',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: {
    200: json(InstanceChangeSchema, 'The state after the lookup, and what it found'),
    400: errorResponse('Not a WordPress instance, or it has no custom domain'),
    401: notSignedIn,
    404: notFound,
    409: errorResponse('Another account holds the domain, or the instance is being deleted'),
  },
});

export const removeDomain = createRoute({
  method: 'delete',
  path: '/api/instances/{id}/domain',
  operationId: 'instances.removeDomain',
  tags,
  summary: 'Detach the custom domain, or drop a pending one (the site answers on its temporary URL)',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: {
    200: json(InstanceChangeSchema, '"Custom domain removed successfully"'),
    400: errorResponse('Not a WordPress instance, or it has no custom domain'),
    401: notSignedIn,
    403: inactive('Your subscription is inactive. Removing domains is disabled.'),
    404: notFound,
    409: notDeployed,
    502: driverFailed(DRIVER_FAILED.removeDomain),
  },
});

export const getSsl = createRoute({
  method: 'get',
  path: '/api/instances/{id}/ssl',
  operationId: 'instances.ssl',
  tags,
  summary: 'The custom domain’s certificate, checked now by a TLS handshake',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: {
    200: json(SslResultSchema, 'Active, Pending or FAILED (with the reason); `none` without a custom domain'),
    400: errorResponse('"SSL is only available for custom domains" (not a WordPress instance)'),
    401: notSignedIn,
    404: notFound,
    409: notDeployed,
    502: driverFailed(DRIVER_FAILED.checkSsl),
  },
});

export const requestSsl = createRoute({
  method: 'post',
  path: '/api/instances/{id}/ssl',
  operationId: 'instances.requestSsl',
  tags,
  summary: 'Discard the custom domain’s certificate and have a new one issued',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: {
    200: json(
      SslResultSchema,
      '"Requested SSL. It may take a moment to activate." and the status right after',
    ),
    400: errorResponse('"SSL is only available for custom domains"'),
    401: notSignedIn,
    403: inactive('Your subscription is inactive. Requesting SSL is disabled.'),
    404: notFound,
    409: errorResponse('The domain is not verified yet, or the instance is not deployed'),
  },
});

export const storage = createRoute({
  method: 'get',
  path: '/api/instances/{id}/storage',
  operationId: 'instances.storage',
  tags,
  summary: 'How much of its storage a WordPress site uses (its own disk: files, uploads, sessions, logs)',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: {
    200: json(SiteStorageSchema, 'Storage use'),
    400: errorResponse('"Storage use is shown for WordPress instances"'),
    401: notSignedIn,
    404: notFound,
    409: notDeployed,
    502: driverFailed(DRIVER_FAILED.requestSsl),
  },
});

const BACKUPS_LACKING = '"Backups are not available for this type of instance" (MongoDB)';

export const listBackups = createRoute({
  method: 'get',
  path: '/api/instances/{id}/backups',
  operationId: 'instances.backups',
  tags,
  summary: 'The backups of an instance, newest first: scheduled and manual, with where each is kept',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: {
    200: json(BackupListSchema, 'Backups'),
    400: errorResponse(BACKUPS_LACKING),
    401: notSignedIn,
    404: notFound,
  },
});

export const createBackup = createRoute({
  method: 'post',
  path: '/api/instances/{id}/backups/new',
  operationId: 'instances.createBackup',
  tags,
  summary:
    'Back up an instance now (WordPress: database + wp-content; MySQL, PostgreSQL: a dump; n8n: its data and key)',
  description:
    'Records the backup and starts it: it reads `running` (with its progress on the live stream) until every part is stored, encrypted and checked, then `complete` (or `failed`, with the reason).',
  ...signedIn,
  request: {
    params: InstanceIdParamsSchema,
    body: { ...json(BackupBodySchema, 'Name (up to 100) and an optional note (up to 500)'), required: true },
  },
  responses: {
    201: json(BackupCreatedSchema, '"Backup creation started", with the new backup’s id three ways'),
    400: errorResponse(`"Backup name is required", "Name too long", "Note too long", or ${BACKUPS_LACKING}`),
    401: notSignedIn,
    403: inactive('Your subscription is inactive. Creating backups is disabled.'),
    404: notFound,
    409: errorResponse('Not running, a backup already in progress, or 10 manual backups kept'),
  },
});

export const restoreBackup = createRoute({
  method: 'post',
  path: '/api/instances/{id}/backups/{backupId}/restore',
  operationId: 'instances.restoreBackup',
  tags,
  summary: 'Restore a backup exactly: the instance’s data is replaced (checksums verified first)',
  description:
    'The instance shows `restoring` until the restore ends, then `running` (or `error` with the reason), on the live stream.',
  ...signedIn,
  request: { params: BackupParamsSchema },
  responses: {
    202: json(MessageSchema, '"Restore initiated"'),
    400: errorResponse(BACKUPS_LACKING),
    401: notSignedIn,
    403: inactive('Restoring backups is disabled.'),
    404: errorResponse('No such instance of this user, or no such backup'),
    409: errorResponse('The instance is not running, or the backup is not complete'),
  },
});

export const deleteBackup = createRoute({
  method: 'delete',
  path: '/api/instances/{id}/backups/{backupId}',
  operationId: 'instances.deleteBackup',
  tags,
  summary: 'Delete a backup',
  ...signedIn,
  request: { params: BackupParamsSchema },
  responses: {
    200: json(MessageSchema, '"Backup deleted"'),
    400: errorResponse(BACKUPS_LACKING),
    401: notSignedIn,
    403: inactive('Deleting backups is disabled.'),
    404: errorResponse('No such instance of this user, or no such backup'),
    409: errorResponse('The backup is still being made'),
    502: driverFailed('Failed to delete backup'),
  },
});

export const backupDownloadLink = createRoute({
  method: 'post',
  path: '/api/instances/{id}/backups/{backupId}/download',
  operationId: 'instances.backupDownloadLink',
  tags,
  summary: 'A short-lived link (5 minutes) that downloads the backup as a tar of its parts, decrypted',
  ...signedIn,
  request: { params: BackupParamsSchema },
  responses: {
    200: json(BackupDownloadSchema, 'The link'),
    400: errorResponse(BACKUPS_LACKING),
    401: notSignedIn,
    404: errorResponse('No such instance of this user, or no such backup'),
    409: errorResponse('The backup is not complete'),
  },
});

export const backupDownload = createRoute({
  method: 'get',
  path: '/api/backup-downloads/{token}',
  operationId: 'instances.backupDownload',
  tags,
  summary: 'The download a backup link gives (the link is the credential: it expires after 5 minutes)',
  security: [],
  request: { params: z.object({ token: z.string().openapi({ param: { name: 'token', in: 'path' } }) }) },
  responses: {
    200: {
      content: { 'application/x-tar': { schema: z.string().openapi({ format: 'binary' }) } },
      description: 'The backup’s parts as a tar',
    },
    404: errorResponse('"This download link is invalid or has expired", or the backup is gone'),
  },
});
