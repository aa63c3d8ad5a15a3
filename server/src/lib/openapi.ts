import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './create-router.ts';

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
  return {
    ...doc,
    info: { ...doc.info, title: 'Berth public API' },
    tags: (doc.tags ?? []).filter((tag) => usedTags.has(tag.name)),
    paths,
    components: { ...doc.components, schemas },
  };
}
