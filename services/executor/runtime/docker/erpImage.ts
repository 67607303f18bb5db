import type Docker from 'dockerode';
import { ConfigError } from '#shared/config/config.ts';
import { engineStatus } from './engine.ts';

/**
 * Image labels this runtime reads. None is required: an image without them (the official `odoo`
 * image) runs `odoo <args>` as its entrypoint, in place of the image's own (erpContainer.ts).
 */
export const IMAGE_LABELS = {
  /** `true` on images of Forja's ERP stand-in. */
  standin: 'forja.standin',
  /** The ERP command inside the image, split on spaces (default `odoo`). */
  command: 'forja.erp-command',
  /** A host folder bind-mounted read-only at the same path (the stand-in's repository checkout). */
  hostFolder: 'forja.host-folder',
} as const;

export const DEFAULT_ERP_COMMAND = 'odoo';

/** Where `buildStandinImage` tags Forja's ERP stand-in: FORJA_DOCKER_IMAGE=localhost/forja-erp-standin:{version}. */
export const STANDIN_IMAGE = 'localhost/forja-erp-standin';

/** What `start` and `runOnce` need to know of an ERP image. */
export interface ErpImage {
  ref: string;
  command: string[];
  standin: boolean;
  hostFolder: string | undefined;
}

/** Versions end up in an image tag, so they stay one plain tag. */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z._-]{0,63}$/;

/** FORJA_DOCKER_IMAGE with `{version}` replaced. */
export function imageRefFor(template: string, erpVersion: string): string {
  if (!VERSION.test(erpVersion)) throw new ConfigError(`FORJA_DOCKER_IMAGE: ${JSON.stringify(erpVersion)} is not an ERP version`);
  return template.replaceAll('{version}', erpVersion);
}

/** Inspects the image on the engine; a missing one is a ConfigError that names it, since Forja never pulls. */
export async function inspectErpImage(docker: Docker, ref: string, erpVersion: string): Promise<ErpImage> {
  let labels: Record<string, string>;
  try {
    const info = await docker.getImage(ref).inspect();
    labels = info.Config?.Labels ?? {};
  } catch (error) {
    if (engineStatus(error) !== 404) throw error;
    throw new ConfigError(
      `FORJA_DOCKER_IMAGE: image ${ref} (ERP version ${erpVersion}) is not on the Docker engine. ` +
        'Forja never pulls images: build or pull it on the engine yourself (e.g. `docker pull ' + ref + '`).',
    );
  }
  const command = (labels[IMAGE_LABELS.command] ?? DEFAULT_ERP_COMMAND).split(' ').filter(Boolean);
  return {
    ref,
    command: command.length > 0 ? command : [DEFAULT_ERP_COMMAND],
    standin: labels[IMAGE_LABELS.standin] === 'true',
    hostFolder: labels[IMAGE_LABELS.hostFolder] || undefined,
  };
}
