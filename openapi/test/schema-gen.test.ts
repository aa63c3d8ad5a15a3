import { readFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import { expect, it } from 'vitest';

const here = (p: string) => new URL(`../${p}`, import.meta.url);

// v1: fields with a default stay optional in the types (a developer's script may leave them out).
it.each([
  ['src/schema.gen.ts', 'openapi.json', true],
  ['src/v1.gen.ts', 'openapi.v1.json', false],
])(
  '%s is what openapi-typescript makes of %s (run `npm run gen:openapi`)',
  async (types, source, defaultNonNullable) => {
    const doc = JSON.parse(await readFile(here(source), 'utf8'));
    const generated = astToString(await openapiTS(doc, { defaultNonNullable }));
    const committed = await readFile(here(types), 'utf8');
    const body = (s: string) => s.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '').trim();
    expect(body(committed)).toBe(body(generated));
  },
);
