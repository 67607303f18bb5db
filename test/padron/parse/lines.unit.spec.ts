import { expect } from 'chai';
import { peekLines, readLineBatches, readLines } from '#services/padron/parse/lines.ts';
import { byteByByte, chunked } from '#test/padron/fixtures/byteChunks.ts';

async function linesOf(source: AsyncIterable<Uint8Array | string>, options = {}): Promise<Array<[number, string]>> {
  const result: Array<[number, string]> = [];
  for await (const { line, lineNumber } of readLines(source, options)) result.push([lineNumber, line]);
  return result;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('padrón line reader', () => {
  it('splits CRLF and LF lines, numbering every line including blank ones', async () => {
    expect(await linesOf(chunked('a;1\r\nb;2\n\nc;3'))).to.deep.equal([
      [1, 'a;1'],
      [2, 'b;2'],
      [3, ''],
      [4, 'c;3'],
    ]);
  });

  it('does not invent a last line after a final line end', async () => {
    expect(await linesOf(chunked('a\r\nb\r\n'))).to.deep.equal([
      [1, 'a'],
      [2, 'b'],
    ]);
  });

  it('joins lines and CRLFs cut by chunk boundaries', async () => {
    expect(await linesOf(chunked('P;250', '52026;x\r', '\nR;1\r', '\n'))).to.deep.equal([
      [1, 'P;25052026;x'],
      [2, 'R;1'],
    ]);
  });

  it('decodes Windows-1252 names (Ñ, accents, € in 0x80–0x9F)', async () => {
    const bytes = Buffer.concat([Buffer.from('CABAÑA LA BLANQUITA;GÓMEZ\n', 'latin1'), Buffer.from([0x80, 0x93, 0x94, 0x0a])]);
    expect(await linesOf(chunked(bytes))).to.deep.equal([
      [1, 'CABAÑA LA BLANQUITA;GÓMEZ'],
      [2, '€“”'],
    ]);
  });

  it('decodes Salta’s UTF-8 file with its BOM, even one byte at a time', async () => {
    const bytes = Buffer.concat([BOM, Buffer.from('CUIT\tDENOMINACION\n20000163989\tPEÑA JOSÉ\n', 'utf8')]);
    expect(await linesOf(byteByByte(bytes))).to.deep.equal([
      [1, 'CUIT\tDENOMINACION'],
      [2, '20000163989\tPEÑA JOSÉ'],
    ]);
  });

  it('does not mistake Latin-1 for UTF-8 when a chunk ends inside what could be a character', async () => {
    const bytes = Buffer.from('PEÑA;GÓMEZ\n', 'latin1');
    expect(await linesOf(byteByByte(bytes))).to.deep.equal([[1, 'PEÑA;GÓMEZ']]);
    expect(await linesOf(chunked(bytes.subarray(0, 3), bytes.subarray(3)))).to.deep.equal([[1, 'PEÑA;GÓMEZ']]);
  });

  it('strips a BOM in front of a Latin-1 file and still decodes it as Latin-1', async () => {
    const bytes = Buffer.concat([BOM, Buffer.from('22112018;ETCHEVERRIGARAY;CABAÑA\n', 'latin1')]);
    expect(await linesOf(chunked(bytes))).to.deep.equal([[1, '22112018;ETCHEVERRIGARAY;CABAÑA']]);
  });

  it('drops NUL bytes and a DOS end-of-file mark', async () => {
    expect(await linesOf(chunked('a;\0b\0\r\n', 'c\r\n\x1a'))).to.deep.equal([
      [1, 'a;b'],
      [2, 'c'],
    ]);
  });

  it('can be forced to an encoding', async () => {
    const utf8 = Buffer.from('PEÑA\n', 'utf8');
    expect(await linesOf(chunked(utf8), { encoding: 'windows-1252' })).to.deep.equal([[1, 'PEÃ\u2018A']]);
  });

  it('hands out whole chunks as batches with their first line number', async () => {
    const batches = [];
    for await (const batch of readLineBatches(chunked('a\nb\nc', '\nd\n'))) batches.push(batch);
    expect(batches).to.deep.equal([
      { lines: ['a', 'b'], firstLineNumber: 1 },
      { lines: ['c', 'd'], firstLineNumber: 3 },
    ]);
  });

  it('refuses a run without line ends longer than the limit (a binary file)', async () => {
    let error: unknown;
    try {
      await linesOf(chunked('x'.repeat(100), 'y'.repeat(100)), { maxLineLength: 150 });
    } catch (caught) {
      error = caught;
    }
    expect(String(error)).to.match(/line 1 is longer than 150 characters/);
  });

  it('peeks the first lines and replays every batch from the start', async () => {
    const { firstLines, batches } = await peekLines(readLineBatches(chunked('1\n2\n', '3\n4\n', '5\n')), 3);
    expect(firstLines).to.deep.equal(['1', '2', '3']);
    const all: string[] = [];
    for await (const batch of batches) all.push(...batch.lines);
    expect(all).to.deep.equal(['1', '2', '3', '4', '5']);
  });

  it('releases the stream when the replay is returned before being read (a refused file)', async () => {
    const stream = chunked(...Array.from({ length: 50 }, (_, i) => `${i}\n`));
    const { batches } = await peekLines(readLineBatches(stream), 3);
    await batches.return(undefined);
    expect(stream.destroyed).to.equal(true);
    expect(await batches.next()).to.deep.equal({ done: true, value: undefined });
  });

  it('releases the stream when the consumer stops midway', async () => {
    const stream = chunked(...Array.from({ length: 50 }, (_, i) => `${i}\n`));
    const { batches } = await peekLines(readLineBatches(stream), 3);
    for await (const batch of batches) if (batch.firstLineNumber > 5) break;
    expect(stream.destroyed).to.equal(true);
  });

  it('peeks a file shorter than asked', async () => {
    const { firstLines, batches } = await peekLines(readLineBatches(chunked('1\n2')), 30);
    expect(firstLines).to.deep.equal(['1', '2']);
    const all: string[] = [];
    for await (const batch of batches) all.push(...batch.lines);
    expect(all).to.deep.equal(['1', '2']);
  });
});
