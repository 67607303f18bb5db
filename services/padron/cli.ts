import { orExit } from '#shared/config/config.ts';
import { runProcesses } from '#shared/platform/process.ts';
import { runImportCommand } from './cli/importCommand.ts';
import { USAGE } from './cli/flags.ts';
import { runLoadsCommand } from './cli/loadsCommand.ts';
import { PadronInputError } from './import/padronInputError.ts';
import { loadPadronSettings } from './padron.settings.ts';
import { startPadronProcess } from './padronProcess.ts';
import { PadronArchiveError } from './archive/padronArchiveError.ts';
import { PadronFormatError } from './parse/padronFormatError.ts';

/**
 * `npm run padron -- import|loads|serve`. Refused input (unknown state, missing file, wrong
 * layout, missing Salta rate table) is one line on stderr and exit code 2; other failures exit 1.
 */
async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'import':
      return runImportCommand(rest);
    case 'loads':
      return runLoadsCommand(rest);
    case 'serve':
      if (rest.length > 0) throw new PadronInputError(`serve takes no arguments (configure it with FORJA_PADRON_* variables)\n${USAGE}`);
      // Settings first, so a wrong one is one line and exit 2 before anything starts.
      orExit(() => loadPadronSettings());
      await runProcesses('forja padron', [startPadronProcess]);
      return -1;
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      throw new PadronInputError(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // serve keeps running until a signal; the others end here.
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof PadronInputError || error instanceof PadronFormatError || error instanceof PadronArchiveError) {
      process.stderr.write(`padron: ${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`padron: failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
