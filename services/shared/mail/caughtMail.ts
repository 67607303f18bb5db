import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { caughtMailKeys, instanceMailPrefix, isMailId } from '../blobs/blobKeys.ts';
import type { BlobStore } from '../blobs/blobStore.ts';
import { BlobNotFoundError } from '../blobs/blobStore.ts';

/**
 * The mail the catcher keeps for each instance, in the blob store under `mail/<slug>/`: each
 * message whole as it came (`<id>.eml`) and what the list shows of it (`<id>.json`). An
 * instance's mail lives in its own folder, so what a user may see of it follows what they may
 * see of the instance, with no filtering of a shared store.
 */
export interface CaughtMailSummary {
  id: string;
  receivedAt: string;
  from: string;
  to: string[];
  subject: string;
  size: number;
  attachments: number;
}

/** How many messages an instance keeps: the oldest go when a new one would pass it. */
export const MAILBOX_LIMIT = 500;

/** A sortable id: the time it came, to the millisecond, and a random part. */
export function newMailId(at: Date): string {
  return `${at.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
}

/** Keeps `raw` for `slug` with its summary, then drops the oldest past the mailbox's limit. */
export async function keepCaughtMail(blobs: BlobStore, slug: string, raw: Buffer, summary: Omit<CaughtMailSummary, 'id' | 'size'>, at: Date): Promise<CaughtMailSummary> {
  const id = newMailId(at);
  const keys = caughtMailKeys(slug, id);
  const kept: CaughtMailSummary = { id, size: raw.length, ...summary };
  await blobs.put(keys.raw, Readable.from([raw]));
  // The summary last: a message is listed only once it is whole.
  await blobs.put(keys.summary, Readable.from([Buffer.from(JSON.stringify(kept))]));
  const ids = await mailIds(blobs, slug);
  for (const old of ids.slice(0, Math.max(0, ids.length - MAILBOX_LIMIT))) await deleteCaughtMail(blobs, slug, old);
  return kept;
}

async function mailIds(blobs: BlobStore, slug: string): Promise<string[]> {
  const names = await blobs.list(instanceMailPrefix(slug));
  return names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length)).filter(isMailId);
}

/** The instance's messages, newest first, at most `limit`. */
export async function listCaughtMail(blobs: BlobStore, slug: string, limit = 200): Promise<CaughtMailSummary[]> {
  const ids = (await mailIds(blobs, slug)).reverse().slice(0, limit);
  const summaries = await Promise.all(ids.map((id) => readSummary(blobs, slug, id)));
  return summaries.filter((summary): summary is CaughtMailSummary => summary !== null);
}

async function readSummary(blobs: BlobStore, slug: string, id: string): Promise<CaughtMailSummary | null> {
  try {
    return JSON.parse((await bytesOf(await blobs.get(caughtMailKeys(slug, id).summary))).toString('utf8')) as CaughtMailSummary;
  } catch (error) {
    if (error instanceof BlobNotFoundError) return null;
    throw error;
  }
}

/** The whole message `id` of `slug`, or null when there is none (an id of another shape is none either). */
export async function readCaughtMail(blobs: BlobStore, slug: string, id: string): Promise<Buffer | null> {
  if (!isMailId(id)) return null;
  try {
    return await bytesOf(await blobs.get(caughtMailKeys(slug, id).raw));
  } catch (error) {
    if (error instanceof BlobNotFoundError) return null;
    throw error;
  }
}

export async function deleteCaughtMail(blobs: BlobStore, slug: string, id: string): Promise<void> {
  const keys = caughtMailKeys(slug, id);
  await blobs.delete(keys.summary);
  await blobs.delete(keys.raw);
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
