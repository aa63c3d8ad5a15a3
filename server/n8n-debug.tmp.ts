import { createLocalDriver } from './src/provisioning/local/local-driver.ts';
import { generateN8nKey } from './src/provisioning/local/n8n-instances.ts';
const root = '/tmp/n8ndbg/root';
const driver = createLocalDriver({ dataRoot: root, sites: {}, log: (l) => console.log(l) });
await driver.start();
const urls = await driver.deployN8n({ id: '11111111-2222-4333-8444-555555555555', ownerEmail: 'x@example.com', ownerPassword: 'Secret123', encryptionKey: generateN8nKey() });
console.log(JSON.stringify(urls));
setInterval(() => {}, 60000);
