// Installs the pinned n8n runtime once per host (about 7 minutes, 2.3 GB) into the shared runtimes folder
// (/var/cache/berth/runtimes, or the folder given as argument): npm run install-n8n [-- <folder>]
// `npm start` runs the same install in the background when the runtime is missing.

import { DEFAULT_RUNTIMES_DIR, installN8nRuntime } from '../src/provisioning/apps/n8n/n8n-runtime.ts';
import { isRoot, systemUser } from '../src/provisioning/local/host/host.ts';
import { ensureN8nCompileCache, ensureN8nTemplate } from '../src/provisioning/local/n8n/n8n-warm-ups.ts';

const dir = process.argv[2] ?? DEFAULT_RUNTIMES_DIR;
const started = performance.now();
const runtime = await installN8nRuntime(dir, process.env, (line) => console.log(`[n8n runtime] ${line}`));
console.log(`[n8n runtime] ready in ${runtime.dir} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
// As root: the migrated template database and the warm-up's compile cache (both root's and read-only;
// the server makes them on its first start otherwise).
const nobody = systemUser('nobody');
if (isRoot() && nobody) {
  const log = (line: string) => console.log(`[n8n runtime] ${line}`);
  await ensureN8nTemplate(dir, nobody, log);
  await ensureN8nCompileCache(dir, nobody, log);
}
