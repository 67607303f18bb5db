import type Docker from 'dockerode';
import { engineStatus, tolerating } from './engine.ts';
import { LABELS, networkName } from './erpContainer.ts';

/**
 * The instance's own bridge network `forja-<slug>`, created on first use. A reverse proxy joins
 * it to reach the ERP; instances never share one.
 */
export async function ensureInstanceNetwork(docker: Docker, slug: string): Promise<void> {
  const name = networkName(slug);
  try {
    await docker.getNetwork(name).inspect();
    return;
  } catch (error) {
    if (engineStatus(error) !== 404) throw error;
  }
  // 409: another executor created it meanwhile. CheckDuplicate: dockerd otherwise allows two of one name.
  await tolerating([409], () => docker.createNetwork({ Name: name, Driver: 'bridge', CheckDuplicate: true, Labels: { [LABELS.instance]: slug } }));
}

/** Removes every network and volume labelled with the instance. */
export async function removeInstanceResources(docker: Docker, slug: string): Promise<void> {
  const filters = { label: [`${LABELS.instance}=${slug}`] };
  for (const network of await docker.listNetworks({ filters })) {
    await tolerating([404], () => docker.getNetwork(network.Id).remove());
  }
  const { Volumes: volumes } = await docker.listVolumes({ filters });
  for (const volume of volumes ?? []) {
    await tolerating([404], () => docker.getVolume(volume.Name).remove());
  }
}
