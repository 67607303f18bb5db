import { isPortFree } from '#shared/local/freePort.ts';
import { portHolder } from './portHolder.ts';

/** The instance's port is held by something else: the start fails naming both rather than moving. */
export class PortTakenError extends Error {
  override readonly name = 'PortTakenError';
}

/** Throws PortTakenError naming the port and, when it can be found, the process that holds it. */
export async function assertPortFree(port: number, slug: string): Promise<void> {
  if (await isPortFree(port)) return;
  const holder = portHolder(port);
  throw new PortTakenError(
    `port ${port} (${slug}'s ERP port, kept since its first start) is taken by ${holder ?? 'another process'}; stop it and start the instance again`,
  );
}
