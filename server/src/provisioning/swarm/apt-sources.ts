import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The host's Debian package sources (the mirror images are built from): one-line entries of
 * /etc/apt/sources.list and *.list, and deb822 stanzas of *.sources, keeping only Debian's own archives
 * (`…/debian` and `…/debian-security`), not third-party repositories a host may also list.
 */
export interface AptSource {
  uri: string;
  suite: string;
  components: string[];
}

const DEBIAN_ARCHIVE = /^https?:\/\/[^\s]+\/debian(-security)?\/?$/;

function oneLineEntries(text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    // deb [options] uri suite components…
    const match = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.+)$/.exec(line);
    if (!match?.[1] || !match[2] || !match[3]) continue;
    sources.push({ uri: match[1], suite: match[2], components: match[3].split(/\s+/) });
  }
  return sources;
}

function deb822Entries(text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of stanza.split('\n')) {
      const match = /^([A-Za-z-]+):\s*(.*)$/.exec(line.trim());
      if (match?.[1] && !line.trim().startsWith('#')) fields.set(match[1].toLowerCase(), match[2] ?? '');
    }
    if (!(fields.get('types') ?? '').split(/\s+/).includes('deb')) continue;
    if ((fields.get('enabled') ?? 'yes').toLowerCase() === 'no') continue;
    const components = (fields.get('components') ?? '').split(/\s+/).filter(Boolean);
    for (const uri of (fields.get('uris') ?? '').split(/\s+/).filter(Boolean)) {
      for (const suite of (fields.get('suites') ?? '').split(/\s+/).filter(Boolean)) {
        sources.push({ uri, suite, components });
      }
    }
  }
  return sources;
}

export function hostAptSources(etc = '/etc/apt'): AptSource[] {
  const files: string[] = [];
  if (existsSync(path.join(etc, 'sources.list'))) files.push(path.join(etc, 'sources.list'));
  const dir = path.join(etc, 'sources.list.d');
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).sort()) {
      if (name.endsWith('.list') || name.endsWith('.sources')) files.push(path.join(dir, name));
    }
  }
  const all = files.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return file.endsWith('.sources') ? deb822Entries(text) : oneLineEntries(text);
  });
  return all.filter((source) => DEBIAN_ARCHIVE.test(source.uri));
}

/** The release the host runs (bookworm): images are built from the same one. */
export function hostCodename(osRelease = '/etc/os-release'): string {
  const text = existsSync(osRelease) ? readFileSync(osRelease, 'utf8') : '';
  return /^VERSION_CODENAME=(\w+)$/m.exec(text)?.[1] ?? 'bookworm';
}

/** The mirror debootstrap fetches the base system from: the host's source of its own release. */
export function debianMirror(sources: AptSource[], codename: string): string {
  const mirror = sources.find((source) => source.suite === codename && !/-security\/?$/.test(source.uri));
  if (!mirror) {
    throw new Error(
      `No Debian mirror for ${codename} in /etc/apt/sources.list or /etc/apt/sources.list.d: images are built from it`,
    );
  }
  return mirror.uri;
}

/** sources.list of the images: the host's Debian sources, one line each. */
export function sourcesList(sources: AptSource[]): string {
  return `${sources.map((s) => `deb ${s.uri} ${s.suite} ${s.components.join(' ')}`).join('\n')}\n`;
}
