// `npm run swarm:local`: a local two-region Docker Swarm on this host to run Berth against
// (PROVISIONER=swarm). us-east-1 has a manager and a worker, eu-west-1 a manager; each node is a dockerd
// in its own network namespace, joined by one bridge; nothing else of the host changes (firewall,
// forwarding). Prints the environment to start Berth with, as `export NAME=value` lines.
//   npm run swarm:local            start it (builds Berth's images once per host first)
//   npm run swarm:local -- stop    stop it and remove everything it made
//   npm run swarm:local -- images  only build the images (once per host; `npm test` does this)
//   npm run swarm:local -- add-node us-east-1   a new worker joins a region (Berth prepares it: images, agent)
//   npm run swarm:local -- kill-node use1-w     a node dies the hard way (its dockerd and containers killed)
import { buildImages } from '../src/provisioning/swarm/image-builder.ts';
import { startBerthSwarm } from '../src/provisioning/swarm/local-berth-swarm.ts';
import {
  addLocalNode,
  killLocalNode,
  readLocalSwarm,
  stopLocalSwarm,
} from '../src/provisioning/swarm/local-swarm.ts';

const ROOT = '/var/lib/berth-swarm-local';
const command = process.argv[2] ?? 'start';
const log = (line: string) => console.error(`[swarm:local] ${line}`);

if (process.getuid?.() !== 0) {
  console.error('swarm:local runs as root: it makes network namespaces and starts dockerd');
  process.exit(1);
}

if (command === 'stop') {
  await stopLocalSwarm(ROOT, log);
  process.exit(0);
}
if (command === 'images') {
  const started = Date.now();
  await buildImages({ log });
  log(`images ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  process.exit(0);
}
if (command === 'add-node') {
  const region = process.argv[3] ?? '';
  const node = await addLocalNode(ROOT, region, { log });
  console.log(`${node.name} ${node.address}`);
  process.exit(0);
}
if (command === 'kill-node') {
  const node = readLocalSwarm(ROOT)?.nodes.find((n) => n.name === process.argv[3]);
  if (!node) {
    console.error(`no node ${process.argv[3] ?? ''} in the local swarm`);
    process.exit(1);
  }
  await killLocalNode(node);
  log(`node ${node.name} killed (its dockerd and every process in its namespace)`);
  process.exit(0);
}
if (command !== 'start') {
  console.error(`unknown command ${command}: start, stop, images, add-node <region> or kill-node <name>`);
  process.exit(1);
}
if (readLocalSwarm(ROOT)) {
  console.error(`a local swarm is already running (${ROOT}); stop it first: npm run swarm:local -- stop`);
  process.exit(1);
}
const started = Date.now();
const swarm = await startBerthSwarm({ name: 'berth', subnet: 0, root: ROOT, log });
log(`ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
const regions = Object.entries(swarm.regions).map(([region, endpoint]) => `${region}=${endpoint}`);
const front = swarm.nodes.filter((node) => node.role === 'manager');
console.log(`export PROVISIONER=swarm
export SWARM_REGIONS=${regions.join(',')}
export SITES_BASE_DOMAIN=localhost
export SITES_HTTP_PORT=80
export SITES_HTTPS_PORT=443
# Front doors: ${front.map((node) => `${node.region} at ${node.address}`).join(', ')}; a site answers on
# http://<slug>.<region>.localhost, e.g. curl --resolve <slug>.${front[0]?.region}.localhost:80:${front[0]?.address} http://<slug>.${front[0]?.region}.localhost/
# Stop and remove everything: npm run swarm:local -- stop`);
