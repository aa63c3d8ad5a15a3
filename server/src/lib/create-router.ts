import { OpenAPIHono, type RouteConfig, type RouteHandler } from '@hono/zod-openapi';
import type { AppEnv } from './app-env.ts';
import { validationBody } from './error-handler.ts';

/** A router whose request validation failures answer 400 in the app's error shape. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return c.json(validationBody(result.error), 400);
    },
  });
}

/** The handler of one route: its params, query and body as the route validates them, its answers as it declares them. */
export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppEnv>;
