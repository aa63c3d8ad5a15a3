// Run as a separate Node process by the provisioning test: starts the local driver on the data root
// given as argument, prints the server pids as one JSON line, then idles until it is SIGKILLed (a crashed
// API process), so the test can check that a new driver adopts the servers it left behind.
import { createLocalDriver } from '../../src/provisioning/local/local-driver.ts';

const dataRoot = process.argv[2];
if (!dataRoot) throw new Error('usage: start-driver.ts <data root>');
const driver = createLocalDriver({ dataRoot, databaseServers: 'shared' });
await driver.start();
const { servers } = await driver.health();
process.stdout.write(
  `${JSON.stringify({ mysql: servers.mysql?.pid, postgresql: servers.postgresql?.pid })}\n`,
);
setInterval(() => {}, 60_000);
