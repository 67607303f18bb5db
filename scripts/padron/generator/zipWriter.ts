import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { crc32, createDeflateRaw } from 'node:zlib';

/** One entry to put in a ZIP: its name and its bytes as a stream. */
export interface ZipSource {
  name: string;
  data: AsyncIterable<Uint8Array>;
}

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const FLAG_DATA_DESCRIPTOR = 0x0008; // sizes and CRC follow the data: nothing is buffered
const FLAG_UTF8_NAME = 0x0800;
const DEFLATE = 8;
const DOS_DATE_2026_06_01 = ((2026 - 1980) << 9) | (6 << 5) | 1;

/**
 * Streams entries into a ZIP (deflated, with data descriptors, no ZIP64: entries and archive stay
 * under 4 GiB, as ARBA's do), respecting backpressure. What ARBA ships, so the importer's ZIP path
 * is exercised; tests use it to build archives without the `zip` command.
 */
export async function writeZip(out: Writable, sources: Iterable<ZipSource>): Promise<void> {
  let offset = 0;
  const central: Buffer[] = [];
  const put = async (chunk: Buffer): Promise<void> => {
    offset += chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  };
  for (const source of sources) {
    const name = Buffer.from(source.name, 'utf8');
    const headerOffset = offset;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(FLAG_DATA_DESCRIPTOR | FLAG_UTF8_NAME, 6);
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt16LE(DOS_DATE_2026_06_01, 12);
    local.writeUInt16LE(name.length, 26);
    await put(Buffer.concat([local, name]));
    const { crc, size, compressedSize } = await deflateInto(source.data, put);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(DATA_DESCRIPTOR, 0);
    descriptor.writeUInt32LE(crc, 4);
    descriptor.writeUInt32LE(compressedSize, 8);
    descriptor.writeUInt32LE(size, 12);
    await put(descriptor);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(CENTRAL_HEADER, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(FLAG_DATA_DESCRIPTOR | FLAG_UTF8_NAME, 8);
    entry.writeUInt16LE(DEFLATE, 10);
    entry.writeUInt16LE(DOS_DATE_2026_06_01, 14);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(compressedSize, 20);
    entry.writeUInt32LE(size, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(headerOffset, 42);
    central.push(entry, name);
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(central.length / 2, 8);
  end.writeUInt16LE(central.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  await put(Buffer.concat([directory, end]));
}

async function deflateInto(data: AsyncIterable<Uint8Array>, put: (chunk: Buffer) => Promise<void>): Promise<{ crc: number; size: number; compressedSize: number }> {
  const deflate = createDeflateRaw();
  let crc = 0;
  let size = 0;
  let compressedSize = 0;
  const feeding = (async () => {
    for await (const chunk of data) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      if (!deflate.write(chunk)) await once(deflate, 'drain');
    }
    deflate.end();
  })();
  for await (const chunk of deflate as AsyncIterable<Buffer>) {
    compressedSize += chunk.length;
    await put(chunk);
  }
  await feeding;
  return { crc: crc >>> 0, size, compressedSize };
}
