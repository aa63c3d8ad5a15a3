import { readFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import { expect, it } from 'vitest';

const here = (p: string) => new URL(`../${p}`, import.meta.url);

// Fields with a default stay optional in the types: a request may leave them out (the UI's and a Pro
// developer's alike); the answers' fields are required by the schemas themselves.
it.each([
  ['src/schema.gen.ts', 'openapi.json'],
  ['src/v1.gen.ts', 'openapi.v1.json'],
])('%s is what openapi-typescript makes of %s (run `npm run gen:openapi`)', async (types, source) => {
  const doc = JSON.parse(await readFile(here(source), 'utf8'));
  const generated = astToString(await openapiTS(doc, { defaultNonNullable: false }));
  const committed = await readFile(here(types), 'utf8');
  const body = (s: string) => s.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '').trim();
  expect(body(committed)).toBe(body(generated));
});
