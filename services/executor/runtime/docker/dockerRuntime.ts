import type Docker from 'dockerode';
import type { ExecutorSettings } from '../../executor.settings.ts';
import { DEFAULT_UID_RANGE, type UidRange } from '#shared/local/tenantAccount.ts';
import { assertPortFree } from '../../ports/portCheck.ts';
import { writeErpConfig } from '../erpConfigFile.ts';
import { prepareTenant } from '../tenantFolders.ts';
import { followOutput } from './containerLog.ts';
import { containerAccount, engineMapping, type Account, type EngineMapping } from './containerUser.ts';
import type { ErpRunSpec, ErpServerUrls, Runtime } from '../runtime.ts';
import { engineStatus, openEngine, tolerating } from './engine.ts';
import { assertDatabaseReachable, containerConfigOptions, erpContainerName, LABELS, serverContainer, type Confinement, type NetworkMode } from './erpContainer.ts';
import { imageRefFor, inspectErpImage, STANDIN_IMAGE, type ErpImage } from './erpImage.ts';
import { ExitWatcher, type ExitListener } from './exitWatcher.ts';
import { ensureInstanceNetwork, removeInstanceResources } from './instanceNetwork.ts';
import { removeOneShotContainer, runOneShot } from './oneShotRun.ts';

/**
 * The docker runtime: each instance's ERP runs in a container `forja-<slug>-erp` on a Docker
 * Engine API (dockerd, or podman's API service), labelled `forja.instance=<slug>`.
 *
 * The container's entrypoint is the image's ERP command (label `forja.erp-command`, default `odoo`,
 * as in the official image), followed by the `odoo-bin` arguments: the image's own ENTRYPOINT does
 * not run (erpContainer.ts says why), so an image built FROM odoo needs no label, another sets
 * one, and whatever an entrypoint would set up belongs in the image.
 * Containers outlive the executor: `start` adopts a running one, and deaths are seen on the
 * engine's event stream (ExitWatcher), whoever started the container.
 */
export interface DockerRuntimeOptions {
  /** FORJA_DOCKER_SOCKET */
  socketPath: string;
  /** FORJA_DOCKER_IMAGE, `{version}` replaced by the ERP version. */
  image: string;
  /** FORJA_DOCKER_NETWORK_MODE */
  networkMode: NetworkMode;
  /** FORJA_INSTANCE_DOMAIN: routing labels for `<slug>.<domain>`. */
  instanceDomain?: string | undefined;
  /** How long `stop` waits after SIGTERM before the engine sends SIGKILL. */
  stopGraceSeconds?: number;
  /** FORJA_ERP_MEMORY_MB and FORJA_ERP_PIDS, per container. */
  limits?: { memoryBytes: number; pids: number };
  /** FORJA_TENANT_UID_RANGE: as root, each instance's containers run as its own account's uid (fi-<slug>), a migration's as fm-<slug>'s. */
  uidRange?: UidRange;
}

export function dockerRuntimeOptions(settings: ExecutorSettings): DockerRuntimeOptions {
  return {
    socketPath: settings.FORJA_DOCKER_SOCKET,
    image: settings.FORJA_DOCKER_IMAGE,
    networkMode: settings.FORJA_DOCKER_NETWORK_MODE,
    instanceDomain: settings.FORJA_INSTANCE_DOMAIN,
    limits: { memoryBytes: settings.FORJA_ERP_MEMORY_MB * 1024 * 1024, pids: settings.FORJA_ERP_PIDS },
  };
}

const DEFAULT_LIMITS = { memoryBytes: 4096 * 1024 * 1024, pids: 1024 };

const urlOf = (port: string | number) => `http://127.0.0.1:${port}`;

export class DockerRuntime implements Runtime {
  readonly kind = 'docker';
  private readonly docker: Docker;
  private readonly exits: ExitWatcher;
  private readonly stopGraceSeconds: number;
  private readonly limits: Omit<Confinement, 'user'>;
  private readonly uidRange: UidRange;
  /** Ends the following of each server's output into its log (containerLog.ts). */
  private readonly followers = new Map<string, () => void>();
  /** What `build`, `start` and `runOnce` learnt of each version's image, for the synchronous `usesStandin`. */
  private readonly standinByVersion = new Map<string, boolean>();
  /** Whether the engine runs rootless, asked once. */
  private mapping: Promise<EngineMapping> | undefined;
  /** Start, stop and destroy of one instance run one at a time. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly options: DockerRuntimeOptions) {
    this.docker = openEngine(options.socketPath);
    this.exits = new ExitWatcher(this.docker);
    this.stopGraceSeconds = options.stopGraceSeconds ?? 10;
    this.uidRange = options.uidRange ?? DEFAULT_UID_RANGE;
    this.limits = options.limits ?? DEFAULT_LIMITS;
  }

  describe(): string {
    const domain = this.options.instanceDomain ? `, hosts <slug>.${this.options.instanceDomain}` : '';
    return `containers on the Docker engine at ${this.options.socketPath}: image ${this.options.image}, ${this.options.networkMode} network${domain}`;
  }

  /** Known once the version's image was inspected; before that, judged by its name. */
  usesStandin(erpVersion: string): boolean {
    const known = this.standinByVersion.get(erpVersion);
    if (known !== undefined) return known;
    try {
      return imageRefFor(this.options.image, erpVersion).startsWith(STANDIN_IMAGE);
    } catch {
      return false;
    }
  }

  async build(spec: ErpRunSpec): Promise<void> {
    await this.image(spec.erpVersion);
  }

  runOnce(spec: ErpRunSpec, args: string[], signal?: AbortSignal): Promise<void> {
    return this.oneShot(spec, args, signal);
  }

  runCommand(spec: ErpRunSpec, subcommand: string, args: string[], signal?: AbortSignal): Promise<void> {
    return this.oneShot(spec, args, signal, subcommand);
  }

  private async oneShot(spec: ErpRunSpec, args: string[], signal: AbortSignal | undefined, subcommand?: string): Promise<void> {
    assertDatabaseReachable(spec, this.options.networkMode);
    const image = await this.image(spec.erpVersion);
    if (this.options.networkMode === 'bridge') await ensureInstanceNetwork(this.docker, spec.slug);
    const tenant = prepareTenant(spec, this.uidRange);
    const user = await this.containerAccount(tenant);
    await writeErpConfig(spec.dataDir, containerConfigOptions(spec, image, { server: false, mode: this.options.networkMode }), tenant);
    await runOneShot(this.docker, spec, image, this.options.networkMode, args, { user, ...this.limits }, signal, subcommand);
  }

  start(spec: ErpRunSpec, hostPort: number, hostGeventPort?: number): Promise<ErpServerUrls> {
    return this.serialized(spec.slug, async () => {
      const adopted = await this.adoptOrClear(spec);
      if (adopted) {
        if (!this.followers.has(spec.slug)) await this.follow(spec, false);
        return adopted;
      }
      assertDatabaseReachable(spec, this.options.networkMode);
      const image = await this.image(spec.erpVersion);
      if (this.options.networkMode === 'bridge') await ensureInstanceNetwork(this.docker, spec.slug);
      const tenant = prepareTenant(spec, this.uidRange);
      const user = await this.containerAccount(tenant);
      const config = containerConfigOptions(spec, image, { server: true, mode: this.options.networkMode, geventPort: hostGeventPort });
      // The file is the tenant's (0600) as root, else Forja's own: the container runs as that account (containerUser.ts).
      await writeErpConfig(spec.dataDir, config, tenant);
      const gevent = config.gevent_port === undefined ? undefined : hostGeventPort;
      await this.exits.ready(); // its death must not slip past the watcher
      await assertPortFree(hostPort, spec.slug);
      if (gevent !== undefined) await assertPortFree(gevent, spec.slug);
      const placement = { mode: this.options.networkMode, hostPort, hostGeventPort: gevent, instanceDomain: this.options.instanceDomain };
      const container = await this.docker.createContainer(serverContainer(spec, image, placement, { user, ...this.limits }));
      try {
        await container.start();
      } catch (error) {
        await tolerating([404], () => container.remove({ force: true, v: true }));
        throw error;
      }
      await this.follow(spec, true);
      return { url: urlOf(hostPort), ...(gevent !== undefined ? { geventUrl: urlOf(gevent) } : {}) };
    });
  }

  stop(slug: string): Promise<void> {
    return this.serialized(slug, async () => {
      await removeOneShotContainer(this.docker, slug); // a stopped instance runs nothing
      this.unfollow(slug);
      const container = this.docker.getContainer(erpContainerName(slug));
      const info = await container.inspect().catch((error: unknown) => (engineStatus(error) === 404 ? null : Promise.reject(error)));
      if (!info?.State.Running) return;
      this.exits.expect(info.Id);
      await tolerating([304, 404], () => container.stop({ t: this.stopGraceSeconds }));
    });
  }

  destroy(slug: string): Promise<void> {
    return this.serialized(slug, async () => {
      this.unfollow(slug);
      const containers = await this.docker.listContainers({ all: true, filters: { label: [`${LABELS.instance}=${slug}`] } });
      for (const { Id: id, State: state } of containers) {
        if (state === 'running') this.exits.expect(id);
        await tolerating([404, 409], () => this.docker.getContainer(id).remove({ force: true, v: true }));
      }
      await removeOneShotContainer(this.docker, slug); // even one whose labels were lost
      await removeInstanceResources(this.docker, slug);
    });
  }

  async running(): Promise<Map<string, string>> {
    const containers = await this.docker.listContainers({ filters: { label: [`${LABELS.role}=erp`], status: ['running'] } });
    const servers = new Map<string, string>();
    for (const { Labels: labels } of containers) {
      const slug = labels[LABELS.instance];
      const port = labels[LABELS.hostPort];
      if (slug && port) servers.set(slug, urlOf(port));
    }
    return servers;
  }

  onUnexpectedExit(listener: ExitListener): void {
    void this.exits.addListener(listener);
  }

  async close(): Promise<void> {
    this.exits.close();
    for (const slug of [...this.followers.keys()]) this.unfollow(slug);
  }

  private async follow(spec: ErpRunSpec, fromStart: boolean): Promise<void> {
    this.unfollow(spec.slug);
    this.followers.set(spec.slug, (await followOutput(this.docker, this.docker.getContainer(erpContainerName(spec.slug)), spec, fromStart)).stop);
  }

  private unfollow(slug: string): void {
    this.followers.get(slug)?.();
    this.followers.delete(slug);
  }

  /** The running server of this instance and database is kept; anything else under its name is removed. */
  private async adoptOrClear(spec: ErpRunSpec): Promise<ErpServerUrls | null> {
    const container = this.docker.getContainer(erpContainerName(spec.slug));
    const info = await container.inspect().catch((error: unknown) => (engineStatus(error) === 404 ? null : Promise.reject(error)));
    if (!info) return null;
    const labels = info.Config.Labels ?? {};
    const port = labels[LABELS.hostPort];
    const gevent = labels[LABELS.hostGeventPort];
    if (info.State.Running && port && labels[LABELS.database] === spec.database) return { url: urlOf(port), ...(gevent ? { geventUrl: urlOf(gevent) } : {}) };
    if (info.State.Running) this.exits.expect(info.Id);
    await tolerating([404], () => container.remove({ force: true, v: true }));
    return null;
  }

  /** Asks the engine once whether it runs rootless, which decides the account containers run as. */
  private async containerAccount(tenant: Account | null): Promise<Account> {
    this.mapping ??= this.docker.info().then((info: { SecurityOptions?: string[] }) => engineMapping(info.SecurityOptions));
    const executor = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    return containerAccount(executor, tenant, await this.mapping);
  }

  private async image(erpVersion: string): Promise<ErpImage> {
    const image = await inspectErpImage(this.docker, imageRefFor(this.options.image, erpVersion), erpVersion);
    this.standinByVersion.set(erpVersion, image.standin);
    return image;
  }

  private serialized<T>(slug: string, work: () => Promise<T>): Promise<T> {
    const next = (this.locks.get(slug) ?? Promise.resolve()).then(work, work);
    this.locks.set(slug, next);
    const release = () => {
      if (this.locks.get(slug) === next) this.locks.delete(slug);
    };
    next.then(release, release);
    return next;
  }
}
