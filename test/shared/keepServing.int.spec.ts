import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const keepServing = fileURLToPath(new URL('../../services/shared/platform/keepServing.ts', import.meta.url));

/**
 * In its own Node process: mocha catches uncaught errors itself, so the handler can only be seen
 * where nothing else is listening (as in a Forja process).
 */
describe('the last-resort handler of a Forja process (issue 10, item 3)', function () {
  this.timeout(30_000);

  it('logs an uncaught exception and an unhandled rejection and keeps the process serving', async () => {
    const script = `
      import { createServer } from 'node:http';
      import { pino } from 'pino';
      import { keepServingOnUncaughtErrors } from ${JSON.stringify(keepServing)};
      keepServingOnUncaughtErrors(pino(pino.destination(2)));
      const server = createServer((req, res) => {
        // A listener that throws, as busboy's field listener did with a bad CSRF token.
        if (req.url === '/crash') setImmediate(() => { throw new Error('listener threw'); });
        if (req.url === '/reject') void Promise.reject(new Error('nobody awaited this'));
        res.end('still here');
      }).listen(0, '127.0.0.1', async () => {
        const base = 'http://127.0.0.1:' + server.address().port;
        const answers = [];
        for (const path of ['/crash', '/reject', '/health']) {
          answers.push(await (await fetch(base + path)).text());
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        process.stdout.write(JSON.stringify(answers));
        server.close();
      });`;
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 20_000 });
    expect(JSON.parse(stdout)).to.deep.equal(['still here', 'still here', 'still here']);
    expect(stderr).to.include('listener threw').and.include('uncaught error: logged, still serving');
    expect(stderr).to.include('nobody awaited this').and.include('unhandled promise rejection: logged, still serving');
  });

  it('without it, the same listener ends the process', async () => {
    const script = `setImmediate(() => { throw new Error('listener threw'); }); setTimeout(() => process.stdout.write('survived'), 200);`;
    const outcome = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }).then(
      () => 'exited 0',
      (error: { code?: number; stdout?: string }) => `exited ${error.code}${error.stdout ?? ''}`,
    );
    expect(outcome).to.equal('exited 1');
  });
});
