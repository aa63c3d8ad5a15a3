// First step of `npm run swarm:local` (after scripts/ensure-install.mjs brought the npm dependencies and Node
// 24): the Debian packages a local swarm needs, installed when missing (as root), else the exact command.
import { ensureSystemPackages, SWARM_PACKAGES } from './system-packages.ts';

ensureSystemPackages(SWARM_PACKAGES);
