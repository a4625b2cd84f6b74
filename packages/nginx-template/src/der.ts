/**
 * The few DER (ASN.1 Distinguished Encoding Rules) encoders an X.509 certificate needs. Each
 * returns the complete tag-length-value bytes; composite values take already encoded children.
 */

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** Any tag around `content`. */
export function encodeTlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

/** SEQUENCE of encoded children. */
export function encodeSequence(...children: Buffer[]): Buffer {
  return encodeTlv(0x30, Buffer.concat(children));
}

/** SET of encoded children (callers pass one child, so no sorting is needed). */
export function encodeSet(...children: Buffer[]): Buffer {
  return encodeTlv(0x31, Buffer.concat(children));
}

/** INTEGER from unsigned big-endian bytes (a leading zero is added when the top bit is set). */
export function encodeUnsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return encodeTlv(0x02, (trimmed[0]! & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

/** OBJECT IDENTIFIER from its dotted form, e.g. `2.5.4.3`. */
export function encodeOid(oid: string): Buffer {
  const parts = oid.split('.').map(Number);
  const bytes = [40 * parts[0]! + parts[1]!];
  for (const part of parts.slice(2)) {
    const group = [part & 0x7f];
    for (let rest = Math.floor(part / 128); rest > 0; rest = Math.floor(rest / 128))
      group.unshift(0x80 | (rest & 0x7f));
    bytes.push(...group);
  }
  return encodeTlv(0x06, Buffer.from(bytes));
}

/** UTF8String. */
export function encodeUtf8String(text: string): Buffer {
  return encodeTlv(0x0c, Buffer.from(text, 'utf8'));
}

/** BOOLEAN. */
export function encodeBoolean(value: boolean): Buffer {
  return encodeTlv(0x01, Buffer.from([value ? 0xff : 0x00]));
}

/** OCTET STRING. */
export function encodeOctetString(content: Buffer): Buffer {
  return encodeTlv(0x04, content);
}

/** BIT STRING with no unused bits. */
export function encodeBitString(content: Buffer): Buffer {
  return encodeTlv(0x03, Buffer.concat([Buffer.from([0]), content]));
}

/** Context-specific constructed tag `[n]` (EXPLICIT). */
export function encodeExplicit(tagNumber: number, child: Buffer): Buffer {
  return encodeTlv(0xa0 | tagNumber, child);
}

/** Context-specific primitive tag `[n]` (IMPLICIT), e.g. a dNSName in subjectAltName. */
export function encodeImplicit(tagNumber: number, content: Buffer): Buffer {
  return encodeTlv(0x80 | tagNumber, content);
}

/**
 * A certificate time: UTCTime for 1950–2049, GeneralizedTime otherwise (RFC 5280 4.1.2.5),
 * to whole seconds.
 */
export function encodeTime(date: Date): Buffer {
  const year = date.getUTCFullYear();
  const pad = (value: number) => String(value).padStart(2, '0');
  const rest = `${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
  if (year >= 1950 && year < 2050) return encodeTlv(0x17, Buffer.from(`${pad(year % 100)}${rest}`, 'ascii'));
  return encodeTlv(0x18, Buffer.from(`${String(year).padStart(4, '0')}${rest}`, 'ascii'));
}
