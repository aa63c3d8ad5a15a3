// Run as a separate Node process by the provisioning tests: starts the local driver on the data root
// given as argument (with the options of the JSON second argument, if any: default its shared servers
// only), prints the pid of every server it runs as one JSON line (by the name health() gives it), then
// idles until it is SIGKILLed (a crashed API process), so the test can check that a new driver adopts
// the servers it left behind.
import { createLocalDriver, type LocalDriverOptions } from '../../src/provisioning/local/local-driver.ts';

const dataRoot = process.argv[2];
if (!dataRoot) throw new Error('usage: start-driver.ts <data root> [options JSON]');
const options = JSON.parse(process.argv[3] ?? '{"databaseServers":"shared"}') as Partial<LocalDriverOptions>;
const driver = createLocalDriver({ ...options, dataRoot });
await driver.start();
const { servers } = await driver.health();
process.stdout.write(
  `${JSON.stringify(Object.fromEntries(Object.entries(servers).map(([name, health]) => [name, health.pid])))}\n`,
);
setInterval(() => {}, 60_000);
