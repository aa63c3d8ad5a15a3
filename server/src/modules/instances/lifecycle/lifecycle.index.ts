import { createRouter } from '../../../lib/create-router.ts';
import * as handlers from './lifecycle.handlers.ts';
import * as routes from './lifecycle.routes.ts';

/** What the lifecycle routes ask of the services. */
type LifecycleRoutesUse = Pick<
  handlers.LifecycleUses,
  | 'list'
  | 'capabilities'
  | 'capabilitiesForOperator'
  | 'deploy'
  | 'get'
  | 'update'
  | 'remove'
  | 'access'
  | 'changePassword'
>;

/** An instance's life over /api/instances: list, deploy, read, rename, delete, credentials and password. */
export function createLifecycleRouter(instances: LifecycleRoutesUse) {
  return (
    createRouter()
      .openapi(routes.list, handlers.list(instances))
      // Before /{id}, which would otherwise take "capabilities" for an id.
      .openapi(routes.capabilities, handlers.capabilities(instances))
      .openapi(routes.operatorCapabilities, handlers.operatorCapabilities(instances))
      .openapi(routes.deploy, handlers.deploy(instances))
      .openapi(routes.getOne, handlers.getOne(instances))
      .openapi(routes.update, handlers.update(instances))
      .openapi(routes.remove, handlers.remove(instances))
      .openapi(routes.access, handlers.access(instances))
      .openapi(routes.changePassword, handlers.changePassword(instances))
  );
}
