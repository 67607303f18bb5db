import { instanceMailPrefix, instancePrefix } from '#shared/blobs/blobKeys.ts';
import type { BlobStore } from '#shared/blobs/blobStore.ts';
import { removeTenantAccount } from '#shared/local/tenantAccount.ts';

/**
 * What purging an instance does to its files, run by the executor on `InstancePurged`: deletes its
 * folder (the logs destroy kept so one could read why it ended, and anything destroy left) and
 * the mail the catcher kept for it. The control-plane only drops the records. Idempotent, so a
 * redelivered event is harmless.
 */
export async function purgeInstanceFiles(blobs: BlobStore, slug: string): Promise<void> {
  await blobs.deletePrefix(instancePrefix(slug));
  await blobs.deletePrefix(instanceMailPrefix(slug));
  // Its files are gone, so its OS account owns nothing any more (tenantAccount.ts).
  removeTenantAccount('instance', slug);
}
