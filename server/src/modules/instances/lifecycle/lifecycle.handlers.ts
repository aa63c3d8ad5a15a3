import type { AppRouteHandler } from '../../../lib/create-router.ts';
import type { InstanceCredentialsService } from '../credentials/instance-credentials.service.ts';
import type { DeployInstance } from '../deploy/instance-deploy.ts';
import type { InstanceCapabilities } from '../instance-capabilities.ts';
import { typeName } from '../instance-catalog.ts';
import type * as routes from './lifecycle.routes.ts';
import type { LifecycleService } from './lifecycle.service.ts';

// One handler a route, typed by its route (lifecycle.routes.ts): each takes only the part of the
// services it calls, and lifecycle.index.ts wires them.

/** What the lifecycle routes may call: the instance's life, capabilities, deploy and credentials. */
export type LifecycleUses = LifecycleService &
  InstanceCapabilities & { deploy: DeployInstance } & Pick<
    InstanceCredentialsService,
    'access' | 'changePassword'
  >;

type Uses<K extends keyof LifecycleUses> = Pick<LifecycleUses, K>;

const PREPARING = 'Preparing credentials... This may take a moment.';

export const list =
  (instances: Uses<'list'>): AppRouteHandler<typeof routes.list> =>
  async (c) =>
    c.json(await instances.list(c.get('user').id, c.req.valid('query')), 200);

export const capabilities =
  (instances: Uses<'capabilities'>): AppRouteHandler<typeof routes.capabilities> =>
  async (c) =>
    c.json(await instances.capabilities(), 200);

export const operatorCapabilities =
  (instances: Uses<'capabilitiesForOperator'>): AppRouteHandler<typeof routes.operatorCapabilities> =>
  async (c) =>
    c.json(await instances.capabilitiesForOperator(), 200);

export const deploy =
  (instances: Uses<'deploy'>): AppRouteHandler<typeof routes.deploy> =>
  async (c) => {
    const instance = await instances.deploy(c.get('user').id, c.req.valid('json'));
    return c.json({ instance, message: 'Instance deployment initiated' }, 202);
  };

export const getOne =
  (instances: Uses<'get'>): AppRouteHandler<typeof routes.getOne> =>
  async (c) =>
    c.json({ instance: await instances.get(c.get('user').id, c.req.valid('param').id) }, 200);

export const update =
  (instances: Uses<'update'>): AppRouteHandler<typeof routes.update> =>
  async (c) => {
    const instance = await instances.update(c.get('user').id, c.req.valid('param').id, c.req.valid('json'));
    return c.json({ instance, message: 'Instance updated successfully' }, 200);
  };

export const remove =
  (instances: Uses<'remove'>): AppRouteHandler<typeof routes.remove> =>
  async (c) => {
    const instance = await instances.remove(c.get('user').id, c.req.valid('param').id);
    return c.json({ instance, message: 'Instance deletion initiated' }, 202);
  };

export const access =
  (instances: Uses<'access'>): AppRouteHandler<typeof routes.access> =>
  async (c) => {
    const result = await instances.access(c.get('user').id, c.req.valid('param').id);
    if ('preparing' in result) return c.json({ message: PREPARING }, 202);
    return c.json(result, 200);
  };

export const changePassword =
  (instances: Uses<'changePassword'>): AppRouteHandler<typeof routes.changePassword> =>
  async (c) => {
    const body = c.req.valid('json');
    const outcome = await instances.changePassword(c.get('user').id, c.req.valid('param').id, body);
    if (outcome === 'pending') return c.json({ message: 'Password change initiated' }, 202);
    return c.json({ message: `${typeName(body.type)} password updated` }, 200);
  };
