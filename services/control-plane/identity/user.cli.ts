import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { readModelOf } from '#projections/readModel.ts';
import { isRole, ROLES, type Role } from '#shared/auth/roles.ts';
import { loadConfigOrExit } from '#shared/config/config.ts';
import { DomainError } from '#shared/decider/decider.ts';
import { createLogger } from '#shared/log.ts';
import { openInfrastructureOrExit } from '#shared/platform/infrastructure.ts';
import { resolvePlatformSecrets } from '#shared/platform/platformSecrets.ts';
import { createSecretBox } from '#shared/secrets/secretBox.ts';
import { migrateSecrets, passwordStore } from '#shared/secrets/secrets.ts';
import { identityService } from './identityService.ts';
import { isEmail, normalizeEmail } from './user.ts';

const USAGE = `usage:
  npm run user -- create --email E --role viewer|developer|admin --password-stdin
  npm run user -- set-role --email E --role viewer|developer|admin
  npm run user -- set-password --email E --password-stdin
  npm run user -- deactivate --email E
  npm run user -- reactivate --email E`;

/** Exit 2 for input the command cannot use, 1 for a refusal by the domain or a failure. */
function fail(message: string, code: 1 | 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const [command, ...rest] = process.argv.slice(2);
const { values } = (() => {
  try {
    return parseArgs({ args: rest, options: { email: { type: 'string' }, role: { type: 'string' }, 'password-stdin': { type: 'boolean' } }, strict: true });
  } catch (error) {
    return fail(`${(error as Error).message}\n${USAGE}`, 2);
  }
})();
if (!command || !['create', 'set-role', 'set-password', 'deactivate', 'reactivate'].includes(command)) fail(USAGE, 2);
const email = normalizeEmail(values.email ?? fail(`--email is required\n${USAGE}`, 2));
if (!isEmail(email)) fail(`not an e-mail address: ${JSON.stringify(values.email)}`, 2);
const needsRole = command === 'create' || command === 'set-role';
if (needsRole && !isRole(values.role)) fail(`unknown role ${JSON.stringify(values.role ?? '')}: use ${ROLES.join(', ')}`, 2);
const needsPassword = command === 'create' || command === 'set-password';
if (needsPassword && !values['password-stdin']) fail(`--password-stdin is required: pass the password on standard input\n${USAGE}`, 2);
const password = needsPassword ? await readPassword() : undefined;

const config = loadConfigOrExit();
const infra = await openInfrastructureOrExit(config, createLogger({ ...config, LOG_LEVEL: 'warn' }, 'user'), 'user');
await migrateSecrets(infra.db);
const identity = identityService({
  store: infra.store,
  passwords: passwordStore(infra.db, createSecretBox(resolvePlatformSecrets(config).masterKey)),
  readModel: readModelOf(infra.db),
});
const metadata = { correlationId: randomUUID(), causationId: randomUUID(), actor: 'system', at: new Date().toISOString(), via: 'cli' };
let exitCode = 0;
try {
  const role = values.role as Role;
  if (command === 'create') await identity.register({ email, role, source: 'cli', password: password! }, metadata);
  if (command === 'set-role') await identity.changeRole(email, role, metadata);
  if (command === 'set-password') await identity.setPassword(email, password!, metadata);
  if (command === 'deactivate') await identity.deactivate(email, metadata);
  if (command === 'reactivate') await identity.reactivate(email, metadata);
  process.stdout.write(`${describe(command!, email, values.role)}\n`);
} catch (error) {
  if (!(error instanceof DomainError)) throw error;
  process.stderr.write(`${error.kind === 'not_found' ? `no user with e-mail ${email}` : error.message}\n`);
  exitCode = 1;
} finally {
  await infra.close();
}
process.exit(exitCode);

function describe(done: string, who: string, role: string | undefined): string {
  if (done === 'create') return `created ${who} as ${role}`;
  if (done === 'set-role') return `${who} is now ${role}`;
  if (done === 'set-password') return `password of ${who} changed`;
  return `${who} ${done}d`;
}

async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (text.length < 8) fail('the password must have at least 8 characters', 2);
  if (text.length > 1024) fail('the password must have at most 1024 characters', 2);
  return text;
}
