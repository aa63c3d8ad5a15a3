import { OpenAPIHono } from '@hono/zod-openapi';
import { validationBody } from './error-handler.ts';

/** The signed-in user, as a verified token tells it. */
export interface AuthUser {
  id: string;
  role: 'user' | 'admin';
}

export interface AppEnv {
  Variables: {
    /** Set first for every request by `requestIds` (lib/request-id.ts): the reference of its errors. */
    requestId: string;
    /** Set by `requireUser` on authenticated routes. */
    user: AuthUser;
    /** Installed once by createApp so route-level middleware can verify tokens. */
    verifyToken: (token: string) => Promise<AuthUser>;
    /** Installed once by createApp: whether the user is an admin now, as the database tells it. */
    isAdmin: (userId: string) => Promise<boolean>;
  };
}

/** A router whose request validation failures answer 400 in the app's error shape. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return c.json(validationBody(result.error), 400);
    },
  });
}
