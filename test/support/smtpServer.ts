import { createServer, type Socket } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO), as the server took them. */
  rcptTo: string[];
  mailFrom: string;
  headers: Record<string, string>;
  /** The body, transfer encoding undone. */
  text: string;
  raw: string;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  /** When each connection came (Date.now()), answered or not. */
  connectedAt: number[];
  close(): Promise<void>;
}

export type SmtpBehaviour =
  /** Takes every message. */
  | 'accept'
  /** Refuses recipients whose address starts with `nobody@` with 550, and takes the others. */
  | 'reject-nobody'
  /** Refuses every connection with 421 in its greeting. */
  | 'refuse';

/** A real SMTP server (the `smtp-server` package) on 127.0.0.1, keeping what it receives. */
export async function startTestSmtpServer(behaviour: SmtpBehaviour = 'accept'): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const connectedAt: number[] = [];
  const options: SMTPServerOptions = {
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      connectedAt.push(Date.now());
      if (behaviour === 'refuse') return callback(Object.assign(new Error('Service not available, try later'), { responseCode: 421 }));
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (behaviour === 'reject-nobody' && address.address.startsWith('nobody@')) return callback(Object.assign(new Error(`mailbox ${address.address} unavailable`), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom;
        received.push({ ...parseMessage(raw), raw, rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address), mailFrom: from ? from.address : '' });
        callback();
      });
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    connectedAt,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP server on 127.0.0.1 that takes connections and never says a word: an SMTP server that hangs. */
export async function startSilentServer(): Promise<{ url: string; connectedAt: number[]; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const connectedAt: number[] = [];
  const server = createServer((socket) => {
    connectedAt.push(Date.now());
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    connectedAt,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Headers (folded lines joined, names lower-cased) and the text body (quoted-printable decoded) of a plain message. */
export function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const normalized = raw.replace(/\r\n/g, '\n');
  const split = normalized.indexOf('\n\n');
  const head = normalized.slice(0, split).replace(/\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let text = normalized.slice(split + 2);
  if (headers['content-transfer-encoding'] === 'quoted-printable') {
    text = Buffer.from(text.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  }
  return { headers, text };
}
