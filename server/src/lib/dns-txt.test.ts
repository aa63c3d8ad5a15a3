import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDns, startFakeDns } from '../../test/fake-dns.ts';
import { createTxtLookup } from './dns-txt.ts';

let dns: FakeDns;

beforeAll(async () => {
  dns = await startFakeDns();
});
afterAll(async () => {
  await dns?.stop();
});

describe('TXT lookups against a DNS server on 127.0.0.1', () => {
  it('answers the records, "none" for NXDOMAIN and NODATA, and a reason for SERVFAIL and silence', async () => {
    const lookup = createTxtLookup({ servers: [dns.server], tryTimeoutMs: 300, tries: 1, totalMs: 1_000 });
    dns.setTxt('_berth-verify.a.example.com', 'berth-verify=abc', 'v=spf1 -all');
    expect(await lookup('_berth-verify.a.example.com')).toEqual({
      kind: 'found',
      records: ['berth-verify=abc', 'v=spf1 -all'],
    });
    expect(await lookup('_berth-verify.nowhere.example.com')).toEqual({ kind: 'none' });
    dns.setTxt('_berth-verify.empty.example.com');
    expect(await lookup('_berth-verify.empty.example.com')).toEqual({ kind: 'none' });

    dns.mode = 'servfail';
    expect(await lookup('_berth-verify.a.example.com')).toEqual({ kind: 'failed', reason: 'ESERVFAIL' });
    dns.mode = 'silent';
    const started = Date.now();
    const silent = await lookup('_berth-verify.a.example.com');
    expect(silent.kind).toBe('failed');
    expect(Date.now() - started).toBeLessThan(2_500);
    dns.mode = 'answer';
  });
});
