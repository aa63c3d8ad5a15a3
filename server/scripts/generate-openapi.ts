// Writes openapi/openapi.json (every route) and openapi/openapi.v1.json (the public /api/v1 subset) from
// the server's route declarations. No server runs and no database is
// reached: the pool behind `db` is lazy and never connects.
import { writeFile } from 'node:fs/promises';
import { createApp } from '../src/app.ts';
import { createDb } from '../src/db/create-db.ts';
import { createMemoryMailer } from '../src/lib/mailer.ts';
import { createServices } from '../src/services.ts';

/** The full document (/api/openapi.json), or with `public` the /api/v1 one (/api/v1/openapi.json). */
export async function renderOpenApi(which: 'full' | 'public' = 'full'): Promise<string> {
  const db = createDb('postgres://unused@127.0.0.1:1/unused');
  try {
    const services = createServices({
      db,
      jwtSecret: 'x'.repeat(32),
      mailer: createMemoryMailer(),
      avatarsDir: '/nonexistent',
      helpUploadsDir: '/nonexistent',
      // Every provider "configured" (nothing is contacted), so their routes are part of the contract.
      payments: {
        stripe: { secretKey: 'sk_unused', webhookSecret: 'whsec_unused' },
        paypal: {
          clientId: 'unused',
          clientSecret: 'unused',
          webhookId: 'unused',
          apiBase: 'http://127.0.0.1:1',
        },
        ethereum: { rpcUrl: 'http://127.0.0.1:1', confirmations: 12 },
      },
    });
    const res = await createApp(services).request(
      which === 'full' ? '/api/openapi.json' : '/api/v1/openapi.json',
    );
    return `${JSON.stringify(await res.json(), null, 2)}\n`;
  } finally {
    await db.destroy();
  }
}

if (import.meta.main) {
  for (const [file, which] of [
    ['openapi.json', 'full'],
    ['openapi.v1.json', 'public'],
  ] as const) {
    const target = new URL(`../../openapi/${file}`, import.meta.url);
    await writeFile(target, await renderOpenApi(which));
    console.log(`wrote ${target.pathname}`);
  }
}
