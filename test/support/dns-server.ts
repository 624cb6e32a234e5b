// A real DNS server for tests (UDP on 127.0.0.1 and a port the OS picks)
// answering TXT queries from a map the test sets; any other name is
// NXDOMAIN. Point DNS_RESOLVERS at `address`. Written on node:dgram after
// RFC 1035 §4.1: one question per query and TXT answers are all the tests
// need, and a DNS library would be one more devDependency whose `engines`
// the shell's Node.js, which runs `npm ci`, has to satisfy.
import dgram from 'node:dgram';

export interface TestDnsServer {
  /** `127.0.0.1:PORT`, for DNS_RESOLVERS. */
  address: string;
  /** TXT values by lower-case name. */
  txt: Map<string, string[]>;
  /** Names asked for, in order. */
  queries: string[];
  close(): Promise<void>;
}

const TYPE_TXT = 16;
const CLASS_IN = 1;
const RCODE = { FORMERR: 1, NXDOMAIN: 3 };
const HEADER = 12;

/** A query's (first) question: its name, its type, and where the question ends; null when it does not parse. */
function questionOf(msg: Buffer): { name: string; type: number; end: number } | null {
  if (msg.length < HEADER || msg.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let at = HEADER;
  for (;;) {
    const length = msg[at];
    // A question's name is plain labels (no compression pointer, each at most 63 octets).
    if (length === undefined || length > 63) return null;
    at += 1;
    if (length === 0) break;
    labels.push(msg.toString('latin1', at, at + length));
    at += length;
  }
  if (at + 4 > msg.length) return null;
  return { name: labels.join('.'), type: msg.readUInt16BE(at), end: at + 4 };
}

/** One TXT value as RDATA: character-strings of at most 255 octets (RFC 1035 §3.3.14). */
function txtData(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i === 0 || i < bytes.length; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

/** A TXT answer record whose name points at the question's (offset 12). */
function txtRecord(value: string): Buffer {
  const rdata = txtData(value);
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc000 | HEADER, 0);
  fixed.writeUInt16BE(TYPE_TXT, 2);
  fixed.writeUInt16BE(CLASS_IN, 4);
  fixed.writeUInt32BE(1, 6); // TTL: 1 s, so that a changed value is seen at once
  fixed.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([fixed, rdata]);
}

/** The response to one query: the question echoed, the name's TXT values as answers, NXDOMAIN for a name not in the map. */
function respond(query: Buffer, txt: Map<string, string[]>, queries: string[]): Buffer {
  const header = Buffer.alloc(HEADER);
  query.copy(header, 0, 0, 2); // the query's id
  const recursionDesired = (query[2] ?? 0) & 0x01;
  const question = questionOf(query);
  if (!question) {
    header[2] = 0x80 | recursionDesired;
    header[3] = RCODE.FORMERR;
    return header;
  }
  const name = question.name.toLowerCase();
  queries.push(name);
  const values = question.type === TYPE_TXT ? txt.get(name) : undefined;
  const answers = (values ?? []).map(txtRecord);
  header[2] = 0x80 | 0x04 | recursionDesired; // a response, authoritative
  header[3] = 0x80 | (txt.has(name) ? 0 : RCODE.NXDOMAIN); // recursion available
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(HEADER, question.end), ...answers]);
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const txt = new Map<string, string[]>();
  const queries: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, from) => socket.send(respond(query, txt, queries), from.port, from.address));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  return {
    address: `127.0.0.1:${socket.address().port}`,
    txt,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
