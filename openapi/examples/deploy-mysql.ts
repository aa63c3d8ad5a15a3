import { createBerthClient } from '@berth/openapi';

const berth = createBerthClient({
  baseUrl: String(process.env.BERTH_URL),
  apiKey: String(process.env.BERTH_API_KEY),
});
const id = (instanceId: string) => ({ params: { path: { instanceId } } });

const { data: list } = await berth.GET('/api/v1/instances');
console.log(`instances: ${list?.data.instances.map((i) => `${i.name} (${i.status})`).join(', ') || 'none'}`);

const { data: created, error } = await berth.POST('/api/v1/instances', {
  body: { name: 'orders-db', type: 'MySQL' },
});
if (!created) throw new Error(error?.message);
let instance = created.data.instance;
while (instance.status !== 'running') {
  if (instance.status === 'error') throw new Error(instance.statusMessage ?? 'deploy failed');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  instance =
    (await berth.GET('/api/v1/instances/{instanceId}', id(instance.id))).data?.data.instance ?? instance;
}
const { data: access } = await berth.GET('/api/v1/instances/{instanceId}/access', id(instance.id));
if (!access || !('database' in access.data) || !access.data.database)
  throw new Error('credentials not ready');
console.log(access.data.database.connectionString);
