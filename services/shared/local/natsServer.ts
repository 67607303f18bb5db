import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { delimiter, join } from 'node:path';
import type { Logger } from '../log.ts';
import { installDebianPackage } from './debianPackage.ts';
import { freePort } from './freePort.ts';

export interface NatsServerOptions {
  /** The server keeps its JetStream files under `<dataDir>/nats`. */
  dataDir: string;
  /** Defaults to a free port chosen by the OS. */
  port?: number;
  logger?: Logger;
}

export interface RunningNatsServer {
  /** For clients: `nats://TOKEN@127.0.0.1:PORT` (createNatsBus takes the token from it). Keep it out of logs. */
  url: string;
  /** `nats://127.0.0.1:PORT`, without the token, for messages. */
  address: string;
  /** SIGTERM, then SIGKILL if it has not exited in time. Safe to call more than once. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

/**
 * Starts a private nats-server with JetStream on 127.0.0.1, for `npm start` without `NATS_URL` and
 * for the tests. Installs the Debian package when it is missing and we are root.
 *
 * Any local user can reach 127.0.0.1, so clients must present a token: generated once like the
 * database password and kept beside the server's data (`<dataDir>/nats/token`, mode 0600), handed
 * to nats-server in a configuration file of mode 0600, never on its command line (anyone can read
 * /proc/<pid>/cmdline).
 */
export async function startNatsServer(options: NatsServerOptions): Promise<RunningNatsServer> {
  const binary = findNatsServer() ?? installNatsServer(options.logger);
  const port = options.port ?? (await freePort());
  const storeDir = join(options.dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  chmodSync(storeDir, 0o700); // the token and JetStream's messages are the server's alone
  const token = serverToken(storeDir);
  const configFile = join(storeDir, 'nats-server.conf');
  writeFileSync(configFile, serverConfig(port, storeDir, token), { mode: 0o600 });
  chmodSync(configFile, 0o600); // writeFileSync's mode applies only to a file it creates
  const child = spawn(binary, ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const remember = (chunk: Buffer): void => {
    output.push(...chunk.toString().split('\n').filter((line) => line.trim() !== ''));
    output.splice(0, Math.max(0, output.length - 20));
  };
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => { // e.g. the binary cannot be executed: no 'exit' follows
      output.push(error.message);
      resolve();
    });
  });
  // A crashed or interrupted test run must not leave the server behind.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    })();
    return stopping;
  };

  try {
    await waitUntilListening(child, port, exited);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}; last nats-server output:\n${output.join('\n')}`);
  }
  const address = `nats://${HOST}:${port}`;
  options.logger?.info({ url: address, storeDir }, 'nats-server started');
  return { url: `nats://${token}@${HOST}:${port}`, address, stop };
}

/** The server's token: read from `<storeDir>/token`, or generated there (mode 0600) on the first start. */
function serverToken(storeDir: string): string {
  const file = join(storeDir, 'token');
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{32,}$/.test(saved)) return saved;
  }
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

/** nats-server's configuration: what the command line held before, plus the token clients must present. */
function serverConfig(port: number, storeDir: string, token: string): string {
  return [
    '# Written by Forja at each start of this private nats-server; edits are lost.',
    `listen: ${JSON.stringify(`${HOST}:${port}`)}`,
    `jetstream { store_dir: ${JSON.stringify(storeDir)} }`,
    `authorization { token: ${JSON.stringify(token)} }`,
    '',
  ].join('\n');
}

function findNatsServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/sbin', '/usr/bin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'nats-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function installNatsServer(logger: Logger | undefined): string {
  logger?.info('nats-server not found: installing it with apt-get');
  installDebianPackage('nats-server', 'nats-server not found: install it with `apt-get install nats-server` or set NATS_URL');
  const binary = findNatsServer();
  if (binary === undefined) throw new Error('nats-server installed but not found on PATH, /usr/sbin or /usr/bin');
  return binary;
}

/** nats-server enables JetStream before it accepts clients, so accepting means ready. */
async function waitUntilListening(child: ChildProcess, port: number, exited: Promise<void>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  while (Date.now() < deadline) {
    if (hasExited) throw new Error(`nats-server exited (${child.exitCode ?? child.signalCode ?? 'failed to start'}) before accepting connections`);
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nats-server did not accept connections on ${HOST}:${port} within ${READY_TIMEOUT_MS} ms`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: HOST, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
