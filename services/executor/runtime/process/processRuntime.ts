import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { SystemUser } from '#shared/local/systemUser.ts';
import { DEFAULT_UID_RANGE, tenantAccount, type UidRange } from '#shared/local/tenantAccount.ts';
import { assertPortFree } from '../../ports/portCheck.ts';
import { prepareTenant } from '../tenantFolders.ts';
import { ABORT_GRACE_MS, signalGroup } from '#shared/platform/processGroup.ts';
import type { ErpRunSpec, ErpServerUrls, Runtime } from '../runtime.ts';
import { appendLog } from '../../logFile.ts';
import { ensureInstanceVenv, type PipSources } from '../pythonEnv/instanceVenv.ts';
import { checkCommand, erpArgs, erpCommandFor, isStandin, processConfigOptions, STANDIN_COMMAND, withPython } from './erpCommand.ts';
import { spawnErp, waitUntilGone } from './erpProcess.ts';
import { endOneShotSurvivor, runOneShot } from './oneShotRun.ts';
import { isServerAlive, oneShotPidFilePath, pidFilePath, readPidFile, recordedServers, removePidFile, writePidFile, type PidRecord } from './pidFile.ts';
import { Supervisor, type ExitListener } from './supervisor.ts';

export interface ProcessRuntimeOptions {
  /** FORJA_DATA_DIR: each instance's folder is `instances/<slug>/` under it (`instanceDir`). */
  dataDir: string;
  /** FORJA_ERP_COMMAND, `{version}` replaced by the ERP version; undefined = the ERP stand-in. */
  command?: string | undefined;
  /** How long `stop` waits after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
  /** The same for an aborted one-shot run, or one an earlier executor left running; default 3 s. */
  oneShotGraceMs?: number;
  /** How often the supervisor looks at servers this executor did not spawn. */
  pollIntervalMs?: number;
  /** FORJA_TENANT_UID_RANGE: as root, each instance's ERP runs as its own account (fi-<slug>), a migration's as fm-<slug>. */
  uidRange?: UidRange;
  /** FORJA_PIP_INDEX_URL and FORJA_PIP_FIND_LINKS, for the venvs of instances with `requirements.txt`. */
  pip?: PipSources;
}

const urlOf = (port: number) => `http://127.0.0.1:${port}`;
const urlsOf = (record: Pick<PidRecord, 'port' | 'geventPort'>): ErpServerUrls => ({ url: urlOf(record.port), ...(record.geventPort ? { geventUrl: urlOf(record.geventPort) } : {}) });

/**
 * Runs each instance's ERP as a local process on 127.0.0.1. Servers are detached and recorded
 * in a pid file in the instance's folder, so like containers they outlive the executor: a
 * restarted executor adopts them instead of starting a second one.
 */
export class ProcessRuntime implements Runtime {
  readonly kind = 'process';
  private readonly dataRoot: string;
  private readonly template: string | undefined;
  private readonly stopGraceMs: number;
  private readonly oneShotGraceMs: number;
  private readonly supervisor: Supervisor;
  private readonly uidRange: UidRange;
  private readonly pip: PipSources;
  /** Start, stop and destroy of one instance run one at a time. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(options: ProcessRuntimeOptions) {
    this.dataRoot = resolve(options.dataDir);
    this.template = options.command;
    this.stopGraceMs = options.stopGraceMs ?? 10_000;
    this.oneShotGraceMs = options.oneShotGraceMs ?? ABORT_GRACE_MS;
    this.supervisor = new Supervisor(this.dataRoot, options.pollIntervalMs ?? 1_000);
    this.uidRange = options.uidRange ?? DEFAULT_UID_RANGE;
    this.pip = options.pip ?? {};
  }

  describe(): string {
    const as = process.getuid?.() === 0 ? ', each instance as its own OS account' : '';
    return this.template === undefined
      ? `processes on 127.0.0.1 running the ERP stand-in (${STANDIN_COMMAND})${as}`
      : `processes on 127.0.0.1 running ${this.template}${isStandin(this.template) ? ' (ERP stand-in)' : ''}${as}`;
  }

  usesStandin(erpVersion: string): boolean {
    try {
      return isStandin(erpCommandFor(this.template, erpVersion));
    } catch {
      return false;
    }
  }

  async build(spec: ErpRunSpec): Promise<void> {
    const configured = this.command(spec.erpVersion, null);
    const user = prepareTenant(spec, this.uidRange);
    if (spec.python && spec.sourceDir) {
      // The command's interpreter, or python3 for a command that is a script alone (erpCommand.ts, withPython).
      const basePython = configured.length > 1 ? configured[0]! : 'python3';
      const log = (line: string) => appendLog(spec.root, spec.logFile, `${line}\n`);
      await ensureInstanceVenv({ root: spec.root, erpVersion: spec.erpVersion, sourceDir: spec.sourceDir, basePython, pip: this.pip, uidRange: this.uidRange, log });
    }
    const command = this.command(spec.erpVersion, spec.python ?? null);
    if (user) for (const part of command.filter((part) => part.startsWith('/'))) assertRunnableBy(user, part, spec);
  }

  /**
   * Runs the ERP once, recorded in the instance's `oneshot.pid` while it runs. A run an earlier
   * executor left behind is ended first; so is one still running when the instance is stopped or
   * destroyed. One-shot runs of one instance never overlap: the jobs that make them do not.
   */
  runOnce(spec: ErpRunSpec, args: string[], signal?: AbortSignal): Promise<void> {
    return this.oneShot(spec, args, signal);
  }

  runCommand(spec: ErpRunSpec, subcommand: string, args: string[], signal?: AbortSignal): Promise<void> {
    return this.oneShot(spec, args, signal, subcommand);
  }

  private async oneShot(spec: ErpRunSpec, args: string[], signal: AbortSignal | undefined, subcommand?: string): Promise<void> {
    const command = this.command(spec.erpVersion, spec.python ?? null);
    const user = prepareTenant(spec, this.uidRange);
    // Beside the run's data: an instance's own folder (where stop and destroy look too), or a migration's work folder.
    const pidFile = join(spec.dataDir, 'oneshot.pid');
    await endOneShotSurvivor(pidFile, uidOf(user), this.oneShotGraceMs);
    await runOneShot(spec, command, args, { user, pidFile, graceMs: this.oneShotGraceMs, signal, ...(subcommand ? { subcommand } : {}) });
  }

  start(spec: ErpRunSpec, port: number, geventPort?: number): Promise<ErpServerUrls> {
    return this.serialized(spec.slug, async () => {
      const path = pidFilePath(this.dataRoot, spec.slug);
      const existing = readPidFile(path);
      if (existing && isServerAlive(existing)) {
        if (!existing.stopping && existing.database === spec.database) {
          this.supervisor.watch(spec.slug, existing);
          return urlsOf(existing);
        }
        await this.terminate(path, existing); // a stop cut short, or another database
      }
      const [program = '', ...prefix] = this.command(spec.erpVersion, spec.python ?? null);
      const user = prepareTenant(spec, this.uidRange);
      const config = processConfigOptions(spec, { server: true, geventPort });
      await assertPortFree(port, spec.slug);
      const gevent = config.gevent_port === undefined ? undefined : geventPort;
      if (gevent !== undefined) await assertPortFree(gevent, spec.slug);
      const child = await spawnErp(program, [...prefix, ...erpArgs(spec), '--http-port', String(port), '--http-interface', '127.0.0.1'], spec, user, config);
      child.unref();
      const record: PidRecord = { pid: child.pid, port, ...(gevent !== undefined ? { geventPort: gevent } : {}), startedAt: new Date().toISOString(), command: [program, ...prefix].join(' '), database: spec.database };
      writePidFile(path, record);
      this.supervisor.watchChild(spec.slug, record, child);
      return urlsOf(record);
    });
  }

  stop(slug: string): Promise<void> {
    return this.serialized(slug, async () => {
      await endOneShotSurvivor(oneShotPidFilePath(this.dataRoot, slug), uidOf(tenantAccount('instance', slug, this.uidRange)), this.oneShotGraceMs);
      const path = pidFilePath(this.dataRoot, slug);
      const record = readPidFile(path);
      if (record && isServerAlive(record)) await this.terminate(path, record);
      else removePidFile(path);
    });
  }

  async destroy(slug: string): Promise<void> {
    // The pid files are the only things this runtime made; the instance's folder is the executor's to remove.
    await this.stop(slug);
  }

  async running(): Promise<Map<string, string>> {
    const servers = recordedServers(this.dataRoot).filter(({ record }) => !record.stopping && isServerAlive(record));
    return new Map(servers.map(({ slug, record }) => [slug, urlOf(record.port)]));
  }

  onUnexpectedExit(listener: ExitListener): void {
    this.supervisor.addListener(listener);
  }

  async close(): Promise<void> {
    this.supervisor.close();
  }

  /** The command line to run, checked, inside the instance's venv when it has one (`python`). */
  private command(erpVersion: string, python: string | null): string[] {
    const command = withPython(erpCommandFor(this.template, erpVersion), python);
    checkCommand(command, erpVersion);
    return command;
  }

  /** SIGTERM to the group, SIGKILL after the grace period; the pid file says "stopping" meanwhile, so no one reports the death. */
  private async terminate(path: string, record: PidRecord): Promise<void> {
    writePidFile(path, { ...record, stopping: true });
    signalGroup(record.pid, 'SIGTERM');
    if (!(await waitUntilGone(record, this.stopGraceMs))) {
      signalGroup(record.pid, 'SIGKILL');
      if (!(await waitUntilGone(record, 5_000))) throw new Error(`ERP server ${record.pid} survived SIGKILL`);
    }
    removePidFile(path);
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

/** Who the ERP's processes run as: what a one-shot run's survivor must run as to be ended. */
const uidOf = (user: SystemUser | null): number => user?.uid ?? process.getuid?.() ?? -1;

/**
 * The ERP's user must reach the command and the instance's folder (every parent folder
 * traversable), or every start would fail obscurely; checked at build, with what to change.
 */
function assertRunnableBy(user: SystemUser, command: string, spec: ErpRunSpec): void {
  const can = (test: string, path: string) => spawnSync('runuser', ['-u', user.name, '--', 'test', test, path]).status === 0;
  const advice = 'make it and its parent folders readable and traversable by others (chmod o+rx), or choose another FORJA_DATA_DIR';
  if (!can('-x', command)) throw new Error(`the ${user.name} user, who runs the ERP, cannot run ${command}: ${advice}`);
  if (!can('-w', join(spec.dataDir, 'filestore'))) throw new Error(`the ${user.name} user, who runs the ERP, cannot reach ${spec.dataDir}: ${advice}`);
}
