import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import Docker from 'dockerode';
import { installDebianPackage } from '#shared/local/debianPackage.ts';
import { runDir } from './runDir.ts';
import { onTeardown } from './teardown.ts';

export type TestEngine = { socketPath: string; docker: Docker } | { skip: string };

let started: Promise<TestEngine> | undefined;

/**
 * A private Docker Engine API for the test run: `podman system service` on a socket in its own
 * folder, with its own storage, networks and events file, stopped (containers and networks
 * removed first) by the root teardown hook. What works on these machines:
 * rootful podman, runc (crun fails without CAP_SYS_RESOURCE), cgroupfs, low default ulimits.
 * Podman is installed from Debian when missing and we are root; otherwise the caller skips.
 */
export function testEngine(): Promise<TestEngine> {
  started ??= startEngine();
  return started;
}

const HINT = 'the docker runtime tests need podman and runc (apt-get install podman runc) and root';

async function startEngine(): Promise<TestEngine> {
  if (process.getuid?.() !== 0) return { skip: `${HINT}; not running as root` };
  for (const name of ['podman', 'runc']) if (!onPath(name)) installDebianPackage(name, HINT);

  const dir = runDir('test-podman');
  const socketPath = join(dir, 'podman.sock');
  const env = { ...process.env, CONTAINERS_CONF: join(dir, 'containers.conf'), CONTAINERS_STORAGE_CONF: join(dir, 'storage.conf') };
  writeConfiguration(dir);
  const service = spawn('podman', ['system', 'service', '--time=0', `unix://${socketPath}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const remember = (chunk: Buffer) => void output.push(...chunk.toString().split('\n').filter(Boolean).slice(-20));
  service.stdout.on('data', remember);
  service.stderr.on('data', remember);
  const exited = new Promise<void>((resolve) => service.once('close', () => resolve()));
  const killOnExit = () => void service.kill('SIGKILL');
  process.once('exit', killOnExit);

  const docker = new Docker({ socketPath });
  onTeardown(async () => {
    await removeEverything(docker).catch((error: unknown) => console.error('podman teardown:', error));
    process.removeListener('exit', killOnExit);
    if (service.exitCode === null && service.signalCode === null) {
      service.kill('SIGTERM');
      const timer = setTimeout(() => service.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    unmountUnder(dir);
  });

  const deadline = Date.now() + 20_000;
  while (!(await pings(socketPath))) {
    if (service.exitCode !== null || Date.now() > deadline) {
      throw new Error(`podman system service did not answer on ${socketPath}:\n${output.slice(-20).join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { socketPath, docker };
}

function writeConfiguration(dir: string): void {
  for (const sub of ['graph', 'run', 'tmp', 'networks']) mkdirSync(join(dir, sub));
  writeFileSync(
    join(dir, 'containers.conf'),
    [
      '[containers]',
      'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]',
      '[engine]',
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `tmp_dir = "${join(dir, 'tmp')}"`,
      '[network]',
      `network_config_dir = "${join(dir, 'networks')}"`,
      '',
    ].join('\n'),
  );
  // skip_mount_home: no bind mount of the graph root is left behind to block removing the folder.
  writeFileSync(
    join(dir, 'storage.conf'),
    ['[storage]', 'driver = "overlay"', `graphroot = "${join(dir, 'graph')}"`, `runroot = "${join(dir, 'run')}"`, '[storage.options.overlay]', 'skip_mount_home = "true"', ''].join('\n'),
  );
}

async function removeEverything(docker: Docker): Promise<void> {
  for (const container of await docker.listContainers({ all: true })) await docker.getContainer(container.Id).remove({ force: true });
  for (const network of await docker.listNetworks({ filters: { label: ['forja.instance'] } })) await docker.getNetwork(network.Id).remove();
  forgetCniAddresses();
}

/**
 * CNI's address bookkeeping (/var/lib/cni/networks/<name>) outlives removed networks, and every
 * run's network names are new. A folder holding no address (only its lock and last-reserved hint)
 * is safe to drop even when another run still has that network: CNI recreates it on demand.
 */
function forgetCniAddresses(): void {
  const root = '/var/lib/cni/networks';
  const names = existsSync(root) ? readdirSync(root).filter((name) => name.startsWith('forja-')) : [];
  for (const name of names) {
    const entries = readdirSync(join(root, name));
    if (entries.every((entry) => entry === 'lock' || entry.startsWith('last_reserved_ip'))) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/** Whatever the service left mounted below its folder (an interrupted container). */
function unmountUnder(dir: string): void {
  const mounts = readFileSync('/proc/self/mounts', 'utf8').split('\n').map((line) => line.split(' ')[1] ?? '');
  for (const point of mounts.filter((path) => path.startsWith(`${dir}/`)).reverse()) spawnSync('umount', ['-l', point]);
}

function pings(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

function onPath(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

/** The test engine, or the calling hook or test skipped with the reason printed. */
export async function engineOrSkip(context: Mocha.Context): Promise<{ socketPath: string; docker: Docker }> {
  const engine = await testEngine();
  if ('skip' in engine) {
    console.log(`      (skipped: ${engine.skip})`);
    context.skip();
  }
  return engine as { socketPath: string; docker: Docker };
}
