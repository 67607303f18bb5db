import { parseArgs } from 'node:util';

/** What `npm run erp:check -- …` asks for. */
export interface ErpCheckArgs {
  erpVersion: string;
  /** The process runtime's command (as FORJA_ERP_COMMAND takes it); absent with `image` too: the stand-in. */
  command?: string;
  /** The docker runtime's image (as FORJA_DOCKER_IMAGE takes it). */
  image?: string;
  /** Bound on each behaviour, milliseconds. */
  timeoutMs: number;
}

export const USAGE = `usage: npm run erp:check -- --version VERSION [--command "PROGRAM [ARGS]" | --image IMAGE] [--timeout SECONDS]
  --version   the ERP version to check (16.0, 17.0, 18.0, 19.0…)
  --command   process runtime: the ERP command, as FORJA_ERP_COMMAND takes it ("/opt/venv/17.0/bin/python /opt/odoo/17.0/odoo-bin")
  --image     docker runtime: the ERP image on the engine at FORJA_DOCKER_SOCKET (odoo:17.0)
  --timeout   seconds each behaviour may take (default 300)
  neither --command nor --image: Forja's ERP stand-in, on the process runtime`;

/** A wrong command line: exit 2 with the message and the usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const VERSION = /^[0-9]+\.[0-9]+$/;
const DEFAULT_TIMEOUT_S = 300;

export function parseErpCheckArgs(argv: readonly string[]): ErpCheckArgs {
  let values: { version?: string | undefined; command?: string | undefined; image?: string | undefined; timeout?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { version: { type: 'string' }, command: { type: 'string' }, image: { type: 'string' }, timeout: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.version === undefined) throw new UsageError('--version is required (e.g. --version 17.0)');
  if (!VERSION.test(values.version)) throw new UsageError(`--version ${JSON.stringify(values.version)} is not an ERP version like 17.0`);
  if (values.command !== undefined && values.image !== undefined) throw new UsageError('give --command (process runtime) or --image (docker runtime), not both');
  if (values.command?.trim() === '') throw new UsageError('--command is empty');
  if (values.image?.trim() === '') throw new UsageError('--image is empty');
  const timeoutS = values.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(values.timeout);
  if (!Number.isInteger(timeoutS) || timeoutS < 1 || timeoutS > 86_400) throw new UsageError(`--timeout ${JSON.stringify(values.timeout)} is not a number of seconds between 1 and 86400`);
  return {
    erpVersion: values.version,
    ...(values.command !== undefined ? { command: values.command.trim() } : {}),
    ...(values.image !== undefined ? { image: values.image.trim() } : {}),
    timeoutMs: timeoutS * 1000,
  };
}
