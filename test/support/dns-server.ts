// A real DNS server for tests (dns2, UDP on 127.0.0.1 and a port the OS
// picks) answering TXT queries from a map the test sets; any other name is
// NXDOMAIN. Point DNS_RESOLVERS at `address`.
import dns2 from 'dns2';

export interface TestDnsServer {
  /** `127.0.0.1:PORT`, for DNS_RESOLVERS. */
  address: string;
  /** TXT values by lower-case name. */
  txt: Map<string, string[]>;
  /** Names asked for, in order. */
  queries: string[];
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const { Packet } = dns2;
  const txt = new Map<string, string[]>();
  const queries: string[] = [];
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      const name = (question?.name ?? '').toLowerCase();
      queries.push(name);
      const values = question?.type === Packet.TYPE.TXT ? txt.get(name) : undefined;
      if (values === undefined && !txt.has(name)) response.header.rcode = Packet.RCODE.NXDOMAIN;
      for (const data of values ?? []) response.answers.push(new Packet.Resource({ name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data }));
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return { address: `127.0.0.1:${addresses.udp!.port}`, txt, queries, close: () => server.close() };
}
