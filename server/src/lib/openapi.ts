import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './app-env.ts';

type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>['getOpenAPI31Document']>;

/** The full OpenAPI 3.1 document of every route the app declares. */
export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>, version: string): OpenApiDocument {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Berth API',
      version,
      description:
        'Deploy and manage WordPress sites, n8n and databases on Berth. Authenticate with `Authorization: Bearer <token>`.',
      license: { name: 'Proprietary', url: 'https://berth.example/terms' },
    },
    servers: [{ url: '/', description: 'This Berth server' }],
    tags: [
      { name: 'Auth', description: 'Accounts, sessions and profile pictures' },
      { name: 'Password reset', description: 'Forgotten passwords, by e-mailed single-use link' },
      { name: 'Subscriptions', description: 'Trial, plan and limits' },
      { name: 'Payments', description: 'Billing settings and billing history' },
      { name: 'Admin', description: 'Administration: users and manual plan grants (admins only)' },
      {
        name: 'Instances',
        description: 'Databases (and later WordPress and n8n): deploy, access, change, delete',
      },
      { name: 'Notifications', description: 'In-app notifications and their live stream' },
      { name: 'Contact', description: 'Messages to support from the help page' },
      { name: 'Config', description: 'Public settings the web app needs before sign-in' },
      { name: 'Health', description: 'Liveness of the server and its database' },
      { name: 'API keys', description: 'The Pro user’s key for /api/v1 (managed with the login token)' },
      // The public API (/api/v1), in the sections of the spec's API reference.
      { name: 'Instance Management', description: 'List, get, deploy and delete instances' },
      { name: 'Database Management', description: 'Database passwords' },
      { name: 'Files and Database Access', description: 'Database credentials and the SFTP login' },
      { name: 'Domain Management', description: 'Custom domains of WordPress sites' },
      { name: 'SSL Management', description: 'Certificates of custom domains' },
      { name: 'Backup Management', description: 'Backups of WordPress sites' },
    ],
  });
}

/** Names of the component schemas a JSON value refers to, directly or through other schemas. */
function referencedSchemas(value: unknown, schemas: Record<string, unknown>): Set<string> {
  const seen = new Set<string>();
  const visit = (v: unknown): void => {
    for (const match of JSON.stringify(v).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = match[1];
      if (name && !seen.has(name)) {
        seen.add(name);
        visit(schemas[name]);
      }
    }
  };
  visit(value);
  return seen;
}

/** What a Pro developer reads first in the public document (and /api-reference renders). */
const PUBLIC_API_DESCRIPTION = `The public API of Berth for Pro subscribers: deploy and manage instances from your own code.

## Authentication
Create a key on the API Access page (/api-access) and send it in the \`X-API-Key\` header, or as \`Authorization: Bearer <key>\`. Keys start with \`berth_sk_\`; a login token is not an API key. Only Pro subscribers may use keys: a key stops working while its owner has no running Pro plan and works again when Pro returns.

## Base URL
All paths start with \`/api/v1\` on your Berth server.

## Defaults
\`POST /api/v1/instances\` deploys n8n when \`type\` is left out (its owner account goes in \`n8n\`); the region defaults to us-east-1, memory to 4GB and CPU to 2.

## Response format
Successes: \`{ "success": true, "message": "…", "data": … }\`. Errors: \`{ "error": "<name>", "message": "…", "details": { "code": "<code>", … } }\`: \`error\` is the status's name from the table below (\`Bad Request\`, \`Conflict\` and \`Bad Gateway\` for 400, 409 and 502), \`details.code\` a stable machine code (\`validation_error\`, \`plan_limit\`, \`conflict\`, …).

## Error responses
| Status | Name | Message |
|---|---|---|
| 401 | Unauthorized | Invalid or missing API key |
| 403 | Forbidden | API access requires Pro plan subscription |
| 404 | Not Found | Instance not found |
| 429 | Too Many Requests | Rate limit exceeded. Please try again later. |
| 202 | Accepted | Credentials not ready yet |

Field errors answer 400 with \`details.fieldErrors\`; plan limits and an inactive subscription answer 403 with their own message; a busy instance 409; a failure on the host 502.

## Rate limits
150 requests per minute per key (the Pro plan card's figure), counted across all servers. Every answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds); a 429 also carries \`Retry-After\`. The product specification also quotes "100 requests per 15 minutes" and "1000 per hour with bursts of 150 per minute"; this server enforces 150 per minute.

## Idempotency
\`POST /api/v1/instances\` and \`POST …/backups/new\` accept an \`Idempotency-Key\` header: the same key with the same body within 24 hours answers the first success again (\`Idempotent-Replayed: true\`) instead of creating a second instance; with another body, 409.`;

/** The public API for Pro developers: only paths under /api/v1 and the schemas they use. */
export function publicSubset(doc: OpenApiDocument): OpenApiDocument {
  const paths = Object.fromEntries(
    Object.entries(doc.paths ?? {}).filter(([path]) => path.startsWith('/api/v1/')),
  );
  const allSchemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const used = referencedSchemas(paths, allSchemas);
  const schemas = Object.fromEntries(
    Object.entries(doc.components?.schemas ?? {}).filter(([name]) => used.has(name)),
  );
  const usedTags = new Set(
    Object.values(paths).flatMap((item) => Object.values(item ?? {}).flatMap((op) => op?.tags ?? [])),
  );
  const usedSchemes = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item ?? {}).flatMap((op) =>
        (op?.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s)),
      ),
    ),
  );
  const securitySchemes = Object.fromEntries(
    Object.entries(doc.components?.securitySchemes ?? {}).filter(([name]) => usedSchemes.has(name)),
  );
  return {
    ...doc,
    info: { ...doc.info, title: 'Berth public API', description: PUBLIC_API_DESCRIPTION },
    tags: (doc.tags ?? []).filter((tag) => usedTags.has(tag.name)),
    paths,
    components: { ...doc.components, schemas, securitySchemes },
  };
}
