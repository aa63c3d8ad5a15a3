import { setUpN8nOwner } from '../apps/n8n/n8n-owner.ts';
import type { N8nSpec } from '../engine.ts';
import type { SwarmFrontDoors } from './front-door.ts';
import type { Region } from './region.ts';

// Talking to a deployed n8n through the region's front door (n8n-engine.ts).

/**
 * Waits until n8n answers through the front door: its REST controllers (POST /rest/login {} → 400) and
 * its editor (GET / → 200, which comes a moment after the controllers).
 */
export async function waitForN8n(doors: SwarmFrontDoors, region: Region, slug: string): Promise<string> {
  const host = new URL(doors.urls(region.id, slug, null, 'n8n').temporaryUrl).host;
  const deadline = Date.now() + 180_000;
  for (;;) {
    const { status, text } = await doors.request(region.id, host, 'POST', '/rest/login', {});
    if (status === 400 && text.includes('emailOrLdapLoginId')) {
      if ((await doors.request(region.id, host, 'GET', '/')).status === 200) return host;
    }
    if (Date.now() > deadline) throw new Error(`n8n did not answer at ${host} (HTTP ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Creates n8n's owner account on a first deploy (an owner set up before is kept if it is the deploy's). */
export function setUpOwner(doors: SwarmFrontDoors, region: Region, host: string, input: N8nSpec) {
  return setUpN8nOwner((method, path, body) => doors.request(region.id, host, method, path, body), input);
}
