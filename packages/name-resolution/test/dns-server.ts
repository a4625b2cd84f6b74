/**
 * A small authoritative DNS server over UDP on 127.0.0.1, for tests of the system lookup
 * (system-lookup.ts): A and AAAA records from a zone the test holds, NXDOMAIN for names it
 * does not know, no answer at all for names it is told to ignore (a DNS that never answers), and
 * the questions it was asked, in order. Only what c-ares sends is understood: one question per
 * query, class IN.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import { isIPv4 } from 'node:net';
import { parseIpAddress } from '@ingresskit/ingress-routes';

const TYPE_A = 1;
const TYPE_AAAA = 28;
const RCODE_NXDOMAIN = 3;

/** A running server: where it listens, its zone, the names it ignores and what it was asked. */
export interface DnsServer {
  /** `127.0.0.1:port`, for a resolver's server list. */
  address: string;
  /** Addresses of each name (lower case, no final dot); IPv4 ones answer A, IPv6 ones AAAA. */
  zone: Map<string, string[]>;
  /** Names whose questions get no answer. */
  silent: Set<string>;
  /** The questions received: `name A` or `name AAAA` (and `name type N` for others). */
  questions: string[];
  stop(): Promise<void>;
}

function readName(message: Buffer, start: number): { name: string; end: number } | undefined {
  const labels: string[] = [];
  let offset = start;
  for (;;) {
    const length = message[offset];
    if (length === undefined || length > 63) return undefined;
    offset += 1;
    if (length === 0) break;
    labels.push(message.subarray(offset, offset + length).toString('latin1'));
    offset += length;
  }
  return { name: labels.join('.').toLowerCase(), end: offset };
}

function answerOf(query: Buffer, zone: ReadonlyMap<string, readonly string[]>, silent: ReadonlySet<string>) {
  const question = readName(query, 12);
  if (query.length < 12 || question === undefined || question.end + 4 > query.length) return undefined;
  const type = query.readUInt16BE(question.end);
  const asked = `${question.name} ${type === TYPE_A ? 'A' : type === TYPE_AAAA ? 'AAAA' : `type ${type}`}`;
  if (silent.has(question.name)) return { asked, response: undefined };
  const addresses = zone.get(question.name);
  const records = (addresses ?? [])
    .filter((address) => (type === TYPE_A ? isIPv4(address) : type === TYPE_AAAA && !isIPv4(address)))
    .map((address) => Buffer.from(parseIpAddress(address)!.bytes));
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // A response, recursion desired and available, authoritative; NXDOMAIN for unknown names.
  header.writeUInt16BE(0x8580 | (addresses === undefined ? RCODE_NXDOMAIN : 0), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map((rdata) => {
    const record = Buffer.alloc(12);
    // The name: a pointer to the question's.
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(30, 6);
    record.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([record, rdata]);
  });
  return { asked, response: Buffer.concat([header, query.subarray(12, question.end + 4), ...answers]) };
}

/** Starts a server with an empty zone on a free port of 127.0.0.1. */
export async function startDnsServer(): Promise<DnsServer> {
  const socket = createSocket('udp4');
  const server: DnsServer = {
    address: '',
    zone: new Map(),
    silent: new Set(),
    questions: [],
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (query: Buffer, peer: RemoteInfo) => {
    const answer = answerOf(query, server.zone, server.silent);
    if (answer === undefined) return;
    server.questions.push(answer.asked);
    if (answer.response !== undefined) socket.send(answer.response, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  server.address = `127.0.0.1:${socket.address().port}`;
  return server;
}
