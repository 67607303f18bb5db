import type { Readable } from 'node:stream';

/** A text file to import: its name (inside the archive when it came in one) and its bytes. */
export interface PadronTextEntry {
  name: string;
  stream: Readable;
}
