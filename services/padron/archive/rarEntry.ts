import type { Readable } from 'node:stream';

/** One entry of a RAR as an extractor reads it (see rarTool.ts). */
export interface RarEntry {
  name: string;
  /** False for folders and links, which hold no padrón. */
  isFile: boolean;
  /** Its decompressed size, which its stream keeps to: it fails rather than give more. */
  size: number;
  /**
   * Its bytes, once. Read them to the end or destroy the stream before asking for the next entry;
   * an entry never opened is skipped.
   */
  open(): Readable;
}
