import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
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
  url: string;
  /** SIGTERM, then SIGKILL if it has not exited in time. Safe to call more than once. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

/**
 * Starts a private nats-server with JetStream on 127.0.0.1, for `npm start` without `NATS_URL` and
 * for the tests. Installs the Debian package when it is missing and we are root.
 */
export async function startNatsServer(options: NatsServerOptions): Promise<RunningNatsServer> {
  const binary = findNatsServer() ?? installNatsServer(options.logger);
  const port = options.port ?? (await freePort());
  const storeDir = join(options.dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  const child = spawn(binary, ['-js', '-sd', storeDir, '-a', HOST, '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const url = `nats://${HOST}:${port}`;
  options.logger?.info({ url, storeDir }, 'nats-server started');
  return { url, stop };
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
