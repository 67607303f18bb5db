import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument as controlPlaneDocument } from '#services/control-plane/http/openapi.ts';
import { openApiDocument as padronDocument } from '#services/padron/http/openapi.ts';

/**
 * Lints the OpenAPI documents exactly as the control-plane and the padrón serve them: writes both
 * to a temporary folder and runs Redocly CLI's `lint` with `redocly.yaml` (part of `npm run
 * check`). Offline: telemetry and the update check are switched off. One line when clean, the
 * warnings if any; the whole report and a non-zero exit on an error.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

const folder = mkdtempSync(join(tmpdir(), 'forja-openapi-'));
try {
  const files = Object.entries({ 'control-plane': controlPlaneDocument(), padron: padronDocument() }).map(([name, document]) => {
    const file = join(folder, `${name}.openapi.json`);
    writeFileSync(file, JSON.stringify(document, null, 2));
    return file;
  });
  const lint = spawnSync(process.execPath, [REDOCLY, 'lint', '--config', join(ROOT, 'redocly.yaml'), '--format', 'stylish', ...files], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
    timeout: 120_000,
  });
  if (lint.status === 0) {
    // Warnings do not fail the check, but are shown.
    if (lint.stdout.trim()) process.stdout.write(lint.stdout);
    console.log(`OpenAPI lint (Redocly, redocly.yaml): ${files.length} documents, no errors`);
  } else {
    process.stdout.write(lint.stdout);
    process.stderr.write(lint.stderr);
    console.error(lint.error ? `redocly could not run: ${lint.error.message}` : `OpenAPI lint failed (exit ${lint.status})`);
    process.exitCode = 1;
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
