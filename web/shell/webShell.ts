import type { RequestHandler } from 'express';
import Docker from 'dockerode';
import type { WebContext } from '../context.ts';
import { openDockerShell } from './dockerShell.ts';
import { openProcessShell } from './processShell.ts';
import { durationMs } from '#shared/config/duration.ts';
import type { ShellSettings } from './shell.settings.ts';
import type { OpenTerminal } from './shellSession.ts';
import { shellSockets, type ShellSockets } from './shellSocket.ts';
import type { Clock } from './idleTimer.ts';
import { DEFAULT_UID_RANGE, tenantAccount, type UidRange } from '#shared/local/tenantAccount.ts';

export interface WebShellOptions {
  settings: ShellSettings;
  dataDir: string;
  /** Derives each instance database role's password, as the executor does. */
  masterKey: Buffer | string;
  /** FORJA_TENANT_UID_RANGE: each instance's shell runs as its own account from it. */
  uidRange?: UidRange;
  clock?: Clock;
}

/** The web shell's sockets, on the runtime each instance runs on (its read model's `runtime`). */
export function webShell(ctx: WebContext, session: RequestHandler, options: WebShellOptions): ShellSockets {
  let docker: Docker | undefined;
  const openTerminal: OpenTerminal = async (instance, runtime, size, recordOpened) => {
    const uidRange = options.uidRange ?? DEFAULT_UID_RANGE;
    if (runtime === 'docker') {
      // The executor runs an instance's container as the instance's uid: the shell's exec too, never the image's root.
      const account = tenantAccount('instance', instance.slug, uidRange);
      return openDockerShell((docker ??= new Docker({ socketPath: options.settings.FORJA_DOCKER_SOCKET })), instance.slug, size, recordOpened, account);
    }
    return openProcessShell({ dataDir: options.dataDir, masterKey: options.masterKey, erpDatabaseUrl: options.settings.FORJA_ERP_DATABASE_URL, uidRange }, instance, size, recordOpened);
  };
  return shellSockets(ctx, session, { openTerminal, idleMs: durationMs(options.settings.FORJA_SHELL_IDLE), ...(options.clock ? { clock: options.clock } : {}) });
}
