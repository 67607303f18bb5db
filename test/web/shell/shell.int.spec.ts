import { mkdirSync } from 'node:fs';
import { expect } from 'chai';
import type { RecordedEvent } from '#shared/eventStore/eventStore.ts';
import { silentLogger } from '#shared/log.ts';
import { tenantAccountName } from '#shared/local/tenantAccount.ts';
import { startWebProcess } from '#web/webProcess.ts';
import { freePort } from '#test/support/freePort.ts';
import { instanceDir } from '#shared/platform/dataPaths.ts';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import { waitUntil } from '#test/support/wait.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import type { WebSession } from '#test/support/webSession.ts';
import { openShell, upgradeStatus, type ShellClient } from './shellClient.ts';

const SLUG = 'shell-target-main';
/** Short, so the idle test waits little; the other tests type well within it. */
const IDLE_S = 4;

describe('the web shell through the running web, on a real pty (process runtime)', function () {
  this.timeout(60_000);
  let platform: WebPlatform;
  let developer: WebSession;
  const open: ShellClient[] = [];
  const shell = async (options = {}) => {
    const client = await openShell(platform.web, developer, SLUG, options);
    open.push(client);
    return client;
  };
  const shellEvents = async (): Promise<RecordedEvent[]> => (await platform.infra.store.readStream(`instance-${SLUG}`)).events.filter((event) => event.type.startsWith('InstanceShell'));
  const sessionOf = (event: RecordedEvent) => (event.data as { sessionId: string }).sessionId;
  /** The opened and closed events of the one session opened since `known` (the session ids seen before), once it is closed. */
  const newSession = async (known: Set<string>): Promise<[RecordedEvent, RecordedEvent]> => {
    let pair: [RecordedEvent, RecordedEvent] | undefined;
    await waitUntil(async () => {
      const events = await shellEvents();
      const opened = events.find((event) => event.type === 'InstanceShellOpened' && !known.has(sessionOf(event)));
      const closed = opened && events.find((event) => event.type === 'InstanceShellClosed' && sessionOf(event) === sessionOf(opened));
      if (opened && closed) pair = [opened, closed];
      return pair !== undefined;
    }, 'the session opened and closed');
    return pair!;
  };
  const knownSessions = async () => new Set((await shellEvents()).map(sessionOf));

  before(async () => {
    platform = await startWebPlatform({ FORJA_SHELL_IDLE: `${IDLE_S}s` });
    developer = await platform.signedIn('developer');
    expect((await developer.post('/projects', { name: 'Shell Target' })).status).to.equal(303);
    expect((await developer.post('/instances', { name: 'Main', project: 'shell-target', erp_version: '18.0' })).location).to.equal(`/instances/${SLUG}`);
    expect((await developer.post('/instances', { name: 'Fresh', project: 'shell-target', erp_version: '18.0' })).location).to.equal('/instances/shell-target-fresh');
    expect((await developer.post('/instances', { name: 'Elsewhere', project: 'shell-target', erp_version: '18.0' })).location).to.equal('/instances/shell-target-elsewhere');
    await jobPlayer(platform).run(SLUG, standinFacts('http://127.0.0.1:18099'));
    await jobPlayer(platform).run('shell-target-elsewhere', standinFacts('http://127.0.0.1:18097'));
    // What the executor makes at provisioning; this instance has no repository, so no src/ checkout.
    mkdirSync(instanceDir(platform.config.FORJA_DATA_DIR, SLUG), { recursive: true });
  });
  afterEach(() => {
    for (const client of open.splice(0)) client.ws.close();
  });
  after(() => platform?.stop());

  it('runs a command and shows its output', async () => {
    const client = await shell();
    client.type('echo "sh$((6*7))ell"\r');
    await client.waitFor(/sh42ell/);
    expect(client.messages[0]).to.deep.include({ type: 'notice' });
  });

  it('passes a flood of output (about 2.7 MB) through whole', async () => {
    const client = await shell();
    client.type('seq 1 400000; echo "flood-$((1+1))"\r');
    await client.waitFor(/flood-2/, 45_000);
    expect(client.output()).to.include('\r\n399999\r\n400000\r\n');
  });

  it('starts at the size the page measured, and resizes the pty when asked (stty size)', async () => {
    const client = await shell({ query: '?cols=90&rows=20' });
    client.type('stty size\r');
    await client.waitFor(/\r20 90\r\n/);
    client.resize(111, 37);
    client.type('stty size\r');
    // No \r before it: the prompt (the instance account's name and folder) may wrap the line at 90 columns and be redrawn.
    await client.waitFor(/37 111\r\n/);
  });

  it('runs in the instance folder, as the instance’s own account when web is root, with the ERP’s database variables and none of web’s secrets', async () => {
    const client = await shell();
    // The marker is computed, so the command line the terminal echoes never matches.
    client.type('echo "@$((40+2))@$(id -un)|$(pwd)|$PGDATABASE|$PGUSER|${#PGPASSWORD}|${FORJA_MASTER_KEY:-no key}|$HOME@"\r');
    const [, who, cwd, database, role, passwordLength, key, home] = (await client.waitFor(/@42@([^|]+)\|([^|]+)\|([^|]+)\|([^|]+)\|(\d+)\|([^|]+)\|([^@]+)@/))!;
    const folder = instanceDir(platform.config.FORJA_DATA_DIR, SLUG);
    expect(who).to.equal(process.getuid?.() === 0 ? tenantAccountName('instance', SLUG) : (process.env['USER'] ?? who));
    expect(cwd).to.equal(folder);
    expect(database).to.equal('forja_shell_target_main');
    expect(role).to.equal('forja_shell_target_main');
    expect(Number(passwordLength)).to.equal(43);
    expect(key).to.equal('no key');
    expect(home).to.equal(`${folder}/home`);
  });

  it('records who opened it and, once it is left, how long it lasted; never what was typed', async () => {
    const known = await knownSessions();
    const client = await shell();
    client.type('echo secret-typing-$((1+1))\r');
    await client.waitFor(/secret-typing-2/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    client.ws.close();
    const [opened, closed] = await newSession(known);
    expect(opened!.data).to.deep.include({ slug: SLUG, user: 'dev@example.com', runtime: 'process' });
    expect(closed!.data).to.deep.include({ slug: SLUG, sessionId: (opened!.data as { sessionId: string }).sessionId, reason: 'user' });
    expect((closed!.data as { durationMs: number }).durationMs).to.be.at.least(300);
    expect(JSON.stringify([opened, closed])).to.not.include('secret-typing');
  });

  it('records the shell exiting as the user leaving', async () => {
    const known = await knownSessions();
    const client = await shell();
    client.type('exit 3\r');
    await client.closed;
    expect(client.messages.at(-1)).to.deep.include({ type: 'closed', reason: 'user', text: 'The shell exited with code 3.' });
    expect((await newSession(known))[1].data).to.deep.include({ reason: 'user' });
  });

  it(`closes after FORJA_SHELL_IDLE (${IDLE_S}s here) without input, saying so, recorded as idle`, async () => {
    const known = await knownSessions();
    const client = await shell();
    const started = Date.now();
    await client.closed;
    expect(Date.now() - started).to.be.within(IDLE_S * 1000 - 200, IDLE_S * 1000 + 3000);
    expect(client.messages.at(-1)).to.deep.include({ type: 'closed', reason: 'idle', text: `Closed after ${IDLE_S} s without input.` });
    const [, closed] = await newSession(known);
    expect(closed.data).to.deep.include({ reason: 'idle' });
    expect((closed.data as { durationMs: number }).durationMs).to.be.at.least(IDLE_S * 1000 - 200);
  });

  it('ends open shells when web stops, saying so, recorded as closed by the server', async () => {
    // A second web on the same platform (sessions live in the database), stopped while a shell is open.
    const second = await startWebProcess(platform.infra, { ...platform.config, FORJA_WEB_PORT: await freePort(), FORJA_CONTROL_PLANE_URL: platform.controlPlane }, silentLogger);
    const known = await knownSessions();
    const client = await openShell(second.url!, developer, SLUG, { origin: second.url! });
    client.type('echo still-$((1+1))\r');
    await client.waitFor(/still-2/);
    await second.stop();
    await client.closed;
    expect(client.messages.at(-1)).to.deep.include({ type: 'closed', reason: 'server' });
    expect((await newSession(known))[1].data).to.deep.include({ reason: 'server' });
  });

  it('refuses an instance whose first provisioning has not finished, recording nothing', async () => {
    const client = await openShell(platform.web, developer, 'shell-target-fresh');
    await client.closed;
    expect(client.messages).to.deep.equal([{ type: 'closed', reason: 'refused', text: 'The shell was not opened: shell-target-fresh is still being provisioned: a shell opens once its first provisioning has finished.' }]);
    expect((await platform.infra.store.readStream('instance-shell-target-fresh')).events.filter((event) => event.type.startsWith('InstanceShell'))).to.deep.equal([]);
  });

  it('refuses a provisioned instance whose folder is not on this server (the executor runs elsewhere), recording nothing', async () => {
    const client = await openShell(platform.web, developer, 'shell-target-elsewhere');
    await client.closed;
    expect(client.messages).to.deep.equal([{ type: 'closed', reason: 'refused', text: 'The folder of shell-target-elsewhere is not on this server: web and the executor must share FORJA_DATA_DIR for its shell to open.' }]);
    expect((await platform.infra.store.readStream('instance-shell-target-elsewhere')).events.filter((event) => event.type.startsWith('InstanceShell'))).to.deep.equal([]);
  });

  it('refuses viewers and visitors, and pages of other sites (Origin), before any shell starts', async () => {
    expect(await upgradeStatus(platform.web, await platform.signedIn('viewer'), SLUG)).to.equal(403);
    expect(await upgradeStatus(platform.web, undefined, SLUG)).to.equal(401);
    expect(await upgradeStatus(platform.web, developer, SLUG, 'http://evil.example')).to.equal(403);
    expect(await upgradeStatus(platform.web, developer, SLUG, platform.web.replace('127.0.0.1', 'localhost'))).to.equal(403);
    expect(await upgradeStatus(platform.web, developer, SLUG)).to.equal(0);
  });

  it('serves the page to developers only, saying how to leave, copy and paste', async () => {
    const page = await developer.get(`/instances/${SLUG}/shell`);
    expect(page.status).to.equal(200);
    expect(page.html).to.include('aria-label="Web shell terminal on Main"').and.include('Ctrl+Shift+C').and.include(`after ${IDLE_S} s without input`);
    expect((await (await platform.signedIn('viewer')).get(`/instances/${SLUG}/shell`)).status).to.equal(403);
    expect((await platform.visitor().get(`/instances/${SLUG}/shell`)).location).to.equal(`/login?next=${encodeURIComponent(`/instances/${SLUG}/shell`)}`);
    expect((await developer.get(`/instances/${SLUG}/shell/socket`)).status).to.equal(426);
    const detail = await developer.get(`/instances/${SLUG}`);
    expect(detail.html).to.include(`href="/instances/${SLUG}/shell"`);
    expect((await (await platform.signedIn('viewer')).get(`/instances/${SLUG}`)).html).to.not.include(`/instances/${SLUG}/shell`);
  });
});
