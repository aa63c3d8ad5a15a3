import { existsSync } from 'node:fs';
import path from 'node:path';
import { REGIONS } from '@berth/openapi/rules';
import { z } from 'zod';

// The SWARM_* settings (PROVISIONER=swarm): which swarm serves which region, its TLS client files, the
// images it runs and where its backups go. env.ts composes them; it alone reads the environment.

const SWARM_REGIONS_RULE =
  'SWARM_REGIONS must be a comma-separated list of <region>=<Docker endpoint>, such as us-east-1=unix:///run/docker.sock,eu-west-1=tcp://10.0.2.5:2376';
const SWARM_IMAGE_TYPES = ['mysql', 'postgresql', 'wordpress', 'n8n'] as const;
const SWARM_IMAGES_RULE =
  'SWARM_IMAGES must be a comma-separated list of <type>=<image> (types: mysql, postgresql, wordpress, n8n), such as mysql=registry.example.com/berth/mariadb:11';

/** `a=b,c=d` → [[a, b], [c, d]], or undefined when an entry has no `=`. */
function pairs(value: string): [string, string][] | undefined {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf('=');
      return at > 0
        ? ([entry.slice(0, at).trim(), entry.slice(at + 1).trim()] as [string, string])
        : undefined;
    });
  return entries.every((entry) => entry !== undefined && entry[1] !== '')
    ? (entries as [string, string][])
    : undefined;
}

export function swarmRegionsOf(value: string): Record<string, string> | undefined {
  const entries = pairs(value);
  if (!entries || entries.length === 0) return undefined;
  const ids = REGIONS.map((region) => region.id as string);
  const ok = entries.every(
    ([region, endpoint]) =>
      ids.includes(region) && /^(unix:\/\/\/\S+|tcp:\/\/[A-Za-z0-9.:[\]-]+:\d{1,5})$/.test(endpoint),
  );
  return ok && new Set(entries.map(([region]) => region)).size === entries.length
    ? Object.fromEntries(entries)
    : undefined;
}

export function swarmImagesOf(value: string): Record<string, string> | undefined {
  const entries = pairs(value);
  if (!entries) return undefined;
  const ok = entries.every(
    ([type, image]) =>
      (SWARM_IMAGE_TYPES as readonly string[]).includes(type) && /^[a-z0-9][\w./:@-]*$/i.test(image),
  );
  return ok ? Object.fromEntries(entries) : undefined;
}

export const swarmEnv = z.object({
  SWARM_REGIONS: z
    .string()
    .refine((value) => swarmRegionsOf(value) !== undefined, SWARM_REGIONS_RULE)
    .optional(),
  SWARM_TLS_DIR: z.string().min(1).optional(),
  SWARM_IMAGES: z
    .string()
    .refine((value) => swarmImagesOf(value) !== undefined, SWARM_IMAGES_RULE)
    .optional(),
  SWARM_BACKUPS_DIR: z.string().min(1).optional(),
  SWARM_ENCRYPTED_OVERLAYS: z
    .enum(['true', 'false'], { error: 'SWARM_ENCRYPTED_OVERLAYS must be true or false' })
    .default('false'),
});

export interface SwarmConfig {
  /** Region id → a manager's Docker endpoint, with TLS client files for tcp:// endpoints. */
  regions: Record<string, { endpoint: string; tls?: { ca: string; cert: string; key: string } }>;
  /** Images per type instead of Berth's own. */
  images: Record<string, string>;
  /** Where backups of swarm instances are kept (off their nodes). */
  backupsDir: string;
  /**
   * Whether instances' overlay networks are encrypted (IPsec between nodes): only where every node's
   * kernel has ESP (README: Scaling out); off by default.
   */
  encryptedOverlays: boolean;
}

export /** The files of a tcp:// region: <SWARM_TLS_DIR>/<region>/{ca,cert,key}.pem, which must exist. */
function swarmConfigOf(
  regions: Record<string, string>,
  tlsDir: string | undefined,
  images: Record<string, string>,
  backupsDir: string,
  encryptedOverlays = false,
): SwarmConfig {
  const problems: string[] = [];
  const withTls = Object.fromEntries(
    Object.entries(regions).map(([region, endpoint]) => {
      if (!endpoint.startsWith('tcp://')) return [region, { endpoint }];
      if (!tlsDir) {
        problems.push(
          `SWARM_TLS_DIR is needed for the tcp:// endpoint of ${region} (Docker's TLS client certificates)`,
        );
        return [region, { endpoint }];
      }
      const file = (name: string) => path.resolve(tlsDir, region, name);
      const tls = { ca: file('ca.pem'), cert: file('cert.pem'), key: file('key.pem') };
      for (const missing of Object.values(tls).filter((f) => !existsSync(f))) {
        problems.push(`SWARM_TLS_DIR: ${missing} is missing (the TLS client files of ${region})`);
      }
      return [region, { endpoint, tls }];
    }),
  );
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return { regions: withTls, images, backupsDir, encryptedOverlays };
}
