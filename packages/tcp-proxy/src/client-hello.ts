/**
 * Reads the server name (SNI) out of the first bytes a TLS client sends, for the ssl-passthrough
 * proxy. Clients are untrusted: every length is checked against what is left, the whole hello is
 * bounded, and anything that is not a well-formed ClientHello is `invalid`, never an exception.
 */

/** Most bytes of TLS records read for one ClientHello; a real one is well under 4 KiB (8 KiB with post-quantum key shares). */
export const MAX_CLIENT_HELLO_BYTES = 16 * 1024;

/** What the bytes received so far say. */
export type ClientHelloParse =
  /** `needed`: how many bytes must have arrived before parsing again can tell more. */
  | { state: 'incomplete'; needed: number }
  | { state: 'complete'; serverName: string | undefined }
  | { state: 'invalid'; reason: string };

const RECORD_HEADER_BYTES = 5;
const CONTENT_TYPE_HANDSHAKE = 0x16;
const HANDSHAKE_CLIENT_HELLO = 0x01;
const EXTENSION_SERVER_NAME = 0x0000;
const NAME_TYPE_HOST_NAME = 0x00;
// A TLS record fragment is at most 2^14 bytes (RFC 8446 5.1).
const MAX_RECORD_FRAGMENT = 16 * 1024;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function invalid(reason: string): ClientHelloParse {
  return { state: 'invalid', reason };
}

/**
 * The handshake bytes carried by the records at the start of `data`, as far as they go, or why
 * they are not handshake records. A ClientHello may span several records (RFC 8446 5.1).
 */
function joinHandshakeRecords(
  data: Uint8Array,
): { bytes: Uint8Array; complete: boolean; needed: number } | string {
  const fragments: Uint8Array[] = [];
  let offset = 0;
  let total = 0;
  let wanted: number | undefined;
  // Where the next record header would end: nothing changes before that many bytes are here.
  let needed = RECORD_HEADER_BYTES;
  while (offset + RECORD_HEADER_BYTES <= data.length) {
    if (data[offset] !== CONTENT_TYPE_HANDSHAKE) return 'not a TLS handshake record';
    if (data[offset + 1] !== 0x03) return 'not a TLS record version';
    const length = (data[offset + 3]! << 8) | data[offset + 4]!;
    if (length === 0 || length > MAX_RECORD_FRAGMENT) return 'TLS record length out of range';
    const end = offset + RECORD_HEADER_BYTES + length;
    fragments.push(data.subarray(offset + RECORD_HEADER_BYTES, Math.min(end, data.length)));
    total += Math.min(end, data.length) - offset - RECORD_HEADER_BYTES;
    if (wanted === undefined && total >= 4) wanted = handshakeLength(fragments);
    if (wanted !== undefined && total >= wanted) break;
    if (end > data.length) {
      // A partial record gives the handshake header early; else wait for the whole record.
      needed = wanted === undefined && total < 4 ? offset + RECORD_HEADER_BYTES + 4 : end;
      break;
    }
    offset = end;
    needed = offset + RECORD_HEADER_BYTES;
  }
  if (offset === 0 && data.length > 0 && data[0] !== CONTENT_TYPE_HANDSHAKE)
    return 'not a TLS handshake record';
  const bytes = concat(fragments, total);
  return { bytes, complete: wanted !== undefined && total >= wanted, needed };
}

function handshakeLength(fragments: Uint8Array[]): number {
  const head = concat(fragments, 4);
  return 4 + ((head[1]! << 16) | (head[2]! << 8) | head[3]!);
}

function concat(fragments: Uint8Array[], limit: number): Uint8Array {
  if (fragments.length === 1) return fragments[0]!.subarray(0, limit);
  const out = new Uint8Array(
    Math.min(
      limit,
      fragments.reduce((sum, part) => sum + part.length, 0),
    ),
  );
  let at = 0;
  for (const part of fragments) {
    if (at >= out.length) break;
    const take = part.subarray(0, out.length - at);
    out.set(take, at);
    at += take.length;
  }
  return out;
}

/** A bounds-checked reader over one byte array; every read past the end throws OutOfBounds. */
class Reader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}
  remaining(): number {
    return this.bytes.length - this.offset;
  }
  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }
  u16(): number {
    this.need(2);
    const value = (this.bytes[this.offset]! << 8) | this.bytes[this.offset + 1]!;
    this.offset += 2;
    return value;
  }
  take(length: number): Uint8Array {
    this.need(length);
    const part = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return part;
  }
  need(length: number): void {
    if (length > this.remaining()) throw new OutOfBounds();
  }
}

class OutOfBounds extends Error {
  override name = 'OutOfBounds';
}

/** The host_name of a server_name extension body; undefined when it names none. */
function readServerName(body: Uint8Array): string | undefined {
  const reader = new Reader(body);
  const list = new Reader(reader.take(reader.u16()));
  if (reader.remaining() !== 0) throw new OutOfBounds();
  while (list.remaining() > 0) {
    const type = list.u8();
    const name = list.take(list.u16());
    // RFC 6066: at most one name per type; the first host_name is the one servers use.
    if (type === NAME_TYPE_HOST_NAME) return new TextDecoder('ascii').decode(name);
  }
  return undefined;
}

function parseHelloBody(body: Uint8Array): ClientHelloParse {
  const reader = new Reader(body);
  reader.take(2 + 32); // legacy_version, random
  const sessionId = reader.u8();
  if (sessionId > 32) return invalid('session id longer than 32 bytes');
  reader.take(sessionId);
  const ciphers = reader.u16();
  if (ciphers === 0 || ciphers % 2 !== 0) return invalid('cipher suite list of odd or zero length');
  reader.take(ciphers);
  const compression = reader.u8();
  if (compression === 0) return invalid('empty compression method list');
  reader.take(compression);
  // Extensions may be absent altogether (old clients): then there is no server name.
  if (reader.remaining() === 0) return { state: 'complete', serverName: undefined };
  const extensions = new Reader(reader.take(reader.u16()));
  if (reader.remaining() !== 0) return invalid('bytes after the extensions');
  let serverName: string | undefined;
  let seen = false;
  while (extensions.remaining() > 0) {
    const type = extensions.u16();
    const data = extensions.take(extensions.u16());
    if (type !== EXTENSION_SERVER_NAME) continue;
    if (seen) return invalid('two server_name extensions');
    seen = true;
    serverName = readServerName(data);
  }
  if (serverName === undefined) return { state: 'complete', serverName: undefined };
  const normalized = serverName.toLowerCase();
  if (!HOSTNAME.test(normalized)) return invalid('server name is not a DNS host name');
  return { state: 'complete', serverName: normalized };
}

/**
 * What the first bytes of a connection say: `incomplete` until a whole ClientHello has arrived,
 * `complete` with its server name (lower case; undefined when the client sent none), or `invalid`
 * with a reason. Beyond {@link MAX_CLIENT_HELLO_BYTES} without a whole hello, `invalid`.
 */
export function parseClientHello(data: Uint8Array): ClientHelloParse {
  const joined = joinHandshakeRecords(data);
  if (typeof joined === 'string') return invalid(joined);
  const { bytes, complete, needed } = joined;
  if (bytes.length >= 1 && bytes[0] !== HANDSHAKE_CLIENT_HELLO) return invalid('not a ClientHello');
  if (bytes.length >= 4 && handshakeLength([bytes]) > MAX_CLIENT_HELLO_BYTES)
    return invalid(`ClientHello longer than ${MAX_CLIENT_HELLO_BYTES} bytes`);
  if (!complete) {
    return data.length >= MAX_CLIENT_HELLO_BYTES + RECORD_HEADER_BYTES * 4
      ? invalid(`no whole ClientHello in ${data.length} bytes`)
      : { state: 'incomplete', needed: Math.max(needed, data.length + 1) };
  }
  try {
    return parseHelloBody(bytes.subarray(4, handshakeLength([bytes])));
  } catch (error) {
    if (error instanceof OutOfBounds) return invalid('a length runs past the end of the ClientHello');
    throw error;
  }
}
