/** One add-on of the static list the web app serves at /wp-addons.json. */
export interface WordPressAddon {
  slug: string;
  name: string;
  description: string;
  url: string;
  logo: string;
  category: string;
}

/** The list loads within 7 s, never from a cache. */
const ADDONS_TIMEOUT_MS = 7000;
export const ADDONS_FAILED = 'Unable to load add-ons from JSON.';

const isAddon = (value: unknown): value is WordPressAddon => {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry.name === 'string' && typeof entry.url === 'string';
};

/** Fetches the add-on list, refusing after `timeoutMs` (the request is aborted too). */
export async function fetchAddons(url: string, timeoutMs = ADDONS_TIMEOUT_MS): Promise<WordPressAddon[]> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error('The add-on list timed out'));
    }, timeoutMs);
  });
  try {
    const response = await Promise.race([
      fetch(url, { cache: 'no-store', signal: controller.signal }),
      timeout,
    ]);
    if (!response.ok) throw new Error(`The add-on list answered ${response.status}`);
    const body: unknown = await Promise.race([response.json(), timeout]);
    if (!Array.isArray(body)) throw new Error('The add-on list is not an array');
    return body.filter(isAddon).map((entry) => ({
      slug: entry.slug ?? entry.name,
      name: entry.name,
      description: entry.description ?? '',
      url: entry.url,
      logo: entry.logo ?? '',
      category: entry.category || 'Other',
    }));
  } finally {
    clearTimeout(timer);
  }
}

/** The add-ons per category, categories in the order of their first add-on. */
export function groupAddons(addons: readonly WordPressAddon[]): [string, WordPressAddon[]][] {
  const groups = new Map<string, WordPressAddon[]>();
  for (const addon of addons) {
    const group = groups.get(addon.category);
    if (group) group.push(addon);
    else groups.set(addon.category, [addon]);
  }
  return [...groups];
}
