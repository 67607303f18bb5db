import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { expect } from 'chai';
import { createPadronDatabase, type PadronDatabase } from './support/padronDatabase.ts';
import { ddmmyyyy, fileFolder, monthPeriod, validCuit } from './support/padronFiles.ts';

/**
 * The import streams: nothing it keeps grows with the file. Proven by importing a file much larger
 * than the JavaScript heap it is allowed (V8 aborts the process when live data outgrows
 * --max-old-space-size); RSS above that is garbage V8 has not collected yet, not data held.
 */
describe('padrón import memory', function () {
  this.timeout(120_000);
  let db: PadronDatabase;

  before(async () => {
    db = await createPadronDatabase('padron_memory');
  });
  after(() => db.close());

  it('imports a 1,000,000-rate file with a 96 MB JavaScript heap', async () => {
    const path = join(fileFolder(), 'ARDJU-large.TXT');
    const out = createWriteStream(path);
    const { from, to } = monthPeriod();
    let chunk = '';
    for (let i = 0; i < 500_000; i++) {
      chunk += `${ddmmyyyy(from)};${ddmmyyyy(from)};${ddmmyyyy(to)};${validCuit(2000000000 + i * 3)};C;S;N;${i % 7},50;${i % 5},00;00;00;RAZON SOCIAL DE PRUEBA NUMERO ${i}\r\n`;
      if (chunk.length > 1 << 20) {
        if (!out.write(chunk, 'latin1')) await once(out, 'drain');
        chunk = '';
      }
    }
    out.end(chunk, 'latin1');
    await once(out, 'finish');

    const result = spawnSync(process.execPath, ['--max-old-space-size=96', '--import', 'tsx', 'services/padron/cli.ts', 'import', '--state', 'C', '--file', path, '--json'], {
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    expect(result.stderr).to.equal('');
    const outcome = JSON.parse(result.stdout) as { load: { rowsLoaded: number }; peakRssMb: number };
    expect(outcome.load.rowsLoaded).to.equal(1_000_000);
  });
});
