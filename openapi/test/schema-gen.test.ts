import { readFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import { expect, it } from 'vitest';

const here = (p: string) => new URL(`../${p}`, import.meta.url);

it('src/schema.gen.ts is what openapi-typescript makes of openapi.json (run `npm run gen:openapi`)', async () => {
  const doc = JSON.parse(await readFile(here('openapi.json'), 'utf8'));
  const generated = astToString(await openapiTS(doc));
  const committed = await readFile(here('src/schema.gen.ts'), 'utf8');
  const body = (s: string) => s.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '').trim();
  expect(body(committed)).toBe(body(generated));
});
