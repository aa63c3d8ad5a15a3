import { appendFile, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessLogReader } from './access-log.ts';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const line = (id: string, status: number, size: number) =>
  `${JSON.stringify({ level: 'info', logger: `http.log.access.${id}`, msg: 'handled request', size, status })}\n`;

describe('the access log reader (what the Usage tab counts)', () => {
  let dir = '';
  let file = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'berth-access-'));
    file = path.join(dir, 'access.log');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('counts responses by instance and status class, across rolls, cut lines and truncation', async () => {
    // What an earlier server process already counted is not counted again.
    await writeFile(file, line(A, 200, 10));
    const reader = accessLogReader(file);
    expect([...(await reader.read())]).toEqual([]);

    await appendFile(file, line(A, 200, 100) + line(A, 404, 5) + line(B, 502, 0) + line(A, 301, 0));
    // Half a line: waits for its end.
    const cut = line(B, 200, 7);
    await appendFile(file, cut.slice(0, 20));
    let counts = await reader.read();
    expect(counts.get(A)).toEqual({ status2xx: 1, status3xx: 1, status4xx: 1, status5xx: 0, bytesSent: 105 });
    expect(counts.get(B)).toEqual({ status2xx: 0, status3xx: 0, status4xx: 0, status5xx: 1, bytesSent: 0 });

    // Caddy rolls: the rest of the old file (the cut line's end and more) is read, then the new one.
    await appendFile(file, cut.slice(20) + line(B, 200, 3));
    await rename(file, path.join(dir, 'access-rolled.log'));
    await writeFile(file, `${line(A, 101, 0)}not json\n${line(A, 500, 9)}`);
    counts = await reader.read();
    expect(counts.get(B)?.status2xx).toBe(2);
    expect(counts.get(B)?.bytesSent).toBe(10);
    expect(counts.get(A)).toEqual({ status2xx: 1, status3xx: 0, status4xx: 0, status5xx: 1, bytesSent: 9 });

    // Truncated in place: read again from its start.
    await writeFile(file, '');
    await reader.read();
    await appendFile(file, line(A, 200, 1));
    expect((await reader.read()).get(A)?.status2xx).toBe(1);
    expect([...(await reader.read())]).toEqual([]);
    await reader.close();
  });

  it('starts a file that appears after the first read from its start', async () => {
    const later = path.join(dir, 'later.log');
    const reader = accessLogReader(later);
    expect([...(await reader.read())]).toEqual([]);
    await writeFile(later, line(A, 200, 4) + line(A, 200, 4));
    expect((await reader.read()).get(A)?.status2xx).toBe(2);
    await reader.close();
  });
});
