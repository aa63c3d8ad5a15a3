import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../../lib/openapi-schemas.ts';
import { DomainBodySchema, SslResultSchema } from '../instance-domains.schemas.ts';
import {
  driverFailed,
  inactive,
  notFound,
  notSignedIn,
  signedIn,
  tags,
  unavailableHere,
} from '../instance-route-responses.ts';
import { DRIVER_FAILED } from '../instances.context.ts';
import { InstanceChangeSchema, InstanceIdParamsSchema } from '../instances.schemas.ts';

// A WordPress site's custom domain and its certificate.

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
      `Verified or attached by another account ("The domain … is already in use by another account"), the instance is not deployed, ${unavailableHere('custom domains')}`,
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
    409: errorResponse(
      `Another account holds the domain, the instance is being deleted, ${unavailableHere('custom domains')}`,
    ),
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
    409: errorResponse(`Not deployed, ${unavailableHere('custom domains')}`),
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
    409: errorResponse(`Not deployed, ${unavailableHere('custom domains')}`),
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
    409: errorResponse(
      `The domain is not verified yet, the instance is not deployed, ${unavailableHere('custom domains')}`,
    ),
  },
});
