import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import * as dnsPacket from 'dns-packet';

const NXDOMAIN = 3;
const SERVFAIL = 2;

export interface FakeDns {
  /** `127.0.0.1:<port>`, as DNS_RESOLVER takes it. */
  server: string;
  /** Sets the TXT records of a name (replacing earlier ones); no values: the name exists without TXT. */
  setTxt(name: string, ...values: string[]): void;
  /** Removes a name: lookups answer NXDOMAIN. */
  remove(name: string): void;
  /** How lookups are answered: normally, never (a timeout), or SERVFAIL. */
  mode: 'answer' | 'silent' | 'servfail';
  /** Every name asked for, in order. */
  queries: string[];
  stop(): Promise<void>;
}

/**
 * A real authoritative DNS server on 127.0.0.1 (UDP, dns-packet encoding) for the names a test sets:
 * TXT answers, NODATA for other types and names without TXT, NXDOMAIN for unknown names.
 */
export async function startFakeDns(): Promise<FakeDns> {
  const zone = new Map<string, string[]>();
  const socket = createSocket('udp4');
  const fake: FakeDns = {
    server: '',
    mode: 'answer',
    queries: [],
    setTxt: (name, ...values) => void zone.set(name.toLowerCase(), values),
    remove: (name) => void zone.delete(name.toLowerCase()),
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (message, peer) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    fake.queries.push(question.name);
    if (fake.mode === 'silent') return;
    const values = zone.get(question.name.toLowerCase());
    const rcode = fake.mode === 'servfail' ? SERVFAIL : values === undefined ? NXDOMAIN : 0;
    const answers: dnsPacket.Answer[] =
      rcode === 0 && question.type === 'TXT' && values
        ? values.map((value) => ({ type: 'TXT', name: question.name, ttl: 0, data: value }))
        : [];
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | rcode,
      questions: [question],
      answers,
    });
    socket.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  fake.server = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  return fake;
}
