import { expect } from 'chai';
import { STATUSES } from '#services/instances/domain/instance.ts';
import { jobPlayer, standinFacts } from '#test/support/instanceJobs.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf, type WebSession } from '#test/support/webSession.ts';

const actionsOf = (html: string) => [...html.matchAll(/<input type="hidden" name="action" value="(\w+)">/g)].map((match) => match[1]);
const badgeOf = (html: string) => /<span class="badge status-([\w-]+)">([^<]*)<\/span>/.exec(html)?.slice(1);
const HEAD = '3f2a9c1d4e5b6a7980112233445566778899aabb';
const NEWER = 'c0ffee00112233445566778899aabbccddeeff00';

/** The instance page as each state renders it, the executor played by appending its step events. */
describe('web: the instance page through a job’s life', function () {
  this.timeout(120_000);
  let platform: WebPlatform;
  let developer: WebSession;
  let player: ReturnType<typeof jobPlayer>;

  async function create(name: string, form: Record<string, string> = {}): Promise<string> {
    const res = await developer.post('/instances', { name, project: 'Detail Co', erp_version: '18.0', ...form });
    expect(res.status, textOf(res.html)).to.equal(303);
    await developer.get(res.location!); // takes the creation's message, so each test sees its own
    return res.location!.replace('/instances/', '');
  }
  const page = async (slug: string) => (await developer.get(`/instances/${slug}`)).html;
  const poll = async (slug: string) => (await developer.get(`/instances/${slug}`, { 'hx-request': 'true' })).html;

  before(async () => {
    platform = await startWebPlatform();
    player = jobPlayer(platform);
    developer = await platform.signedIn('developer');
  });
  after(() => platform?.stop());

  it('offers only Rebuild and Destroy for an instance that failed before it had a database', async () => {
    const slug = await create('Never Built');
    await player.start(slug, 'resolve_source');
    await player.fail(slug, 'resolve_source', 'repository not found');
    const html = await page(slug);
    expect(badgeOf(html)).to.deep.equal(['failed', 'failed']);
    expect(actionsOf(html)).to.deep.equal(['rebuild', 'destroy']);
  });

  it('shows a restart as “restarting · step N of 3” until it ends, with its flash in the status block until then', async () => {
    const slug = await create('Restarted');
    await player.run(slug, standinFacts('http://127.0.0.1:18071'));
    expect((await developer.post(`/instances/${slug}/action`, { action: 'restart' })).status).to.equal(303);

    const html = await page(slug);
    expect(badgeOf(html)).to.deep.equal(['busy', 'restarting · step 1 of 3']);
    expect(html, 'no address while the ERP goes down').to.not.include('class="erp-url"');
    const block = html.slice(html.indexOf('<section id="instance-status"'));
    expect(block).to.match(/<div id="job-flash-[\w-]+" class="job-flash" hx-preserve="true">\s*<div class="flash flash-success" role="status">Restarting [\w-]+: the job is queued\.<\/div>/);
    expect(html.split('the job is queued.').length, 'shown once, in the block').to.equal(2);

    const polled = await poll(slug);
    expect(polled, 'the poll keeps the message’s place, empty').to.match(/<div id="job-flash-[\w-]+" class="job-flash" hx-preserve="true">\s*<\/div>/);
    await player.start(slug, 'stop');
    expect(badgeOf(await poll(slug))).to.deep.equal(['busy', 'restarting · step 1 of 3']);
    await player.complete(slug, 'stop');
    await player.start(slug, 'start');
    expect(badgeOf(await poll(slug))).to.deep.equal(['busy', 'restarting · step 2 of 3']);
    await player.run(slug);
    const ended = await poll(slug);
    expect(badgeOf(ended)).to.deep.equal(['running', 'running']);
    expect(ended, 'the job ended: the message goes').to.not.include('job-flash');
    expect(ended).to.include('class="erp-url"');
    // The Tools card comes with each poll, out of band: its links follow the state without a reload.
    expect(ended).to.match(/<article id="instance-tools" hx-swap-oob="true">/);
    expect(ended).to.include(`href="/dbadmin/${slug}/"`);
  });

  it('keeps other messages above the status block', async () => {
    const slug = await create('Refused');
    const refused = await developer.post(`/instances/${slug}/action`, { action: 'stop' });
    const html = await page(refused.location!.replace('/instances/', ''));
    expect(html.indexOf('flash-error')).to.be.within(0, html.indexOf('<section id="instance-status"'));
  });

  it('says when a destroyed instance was destroyed, and no longer where it ran', async () => {
    const slug = await create('Gone');
    await player.run(slug, standinFacts('http://127.0.0.1:18072'));
    expect((await developer.post(`/instances/${slug}/action`, { action: 'destroy' })).status).to.equal(303);
    expect(badgeOf(await page(slug))).to.deep.equal(['busy', 'destroying · step 1 of 3']);
    await player.run(slug);
    const text = textOf(await page(slug));
    expect(text).to.match(/Destroyed \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: its ERP, database and files are gone/);
    expect(text).to.not.include('Runs as a').and.not.include('stand-in');
  });

  it('shows the commit it runs against the branch head, “behind”, and a rebuild a push left pending', async () => {
    const slug = await create('Tracked', { git_repo: 'ssh://git@git.example.com/detail.git' });
    await player.run(slug, { ...standinFacts('http://127.0.0.1:18073'), resolve_source: { branchHead: HEAD }, fetch_code: { commit: HEAD } });
    expect(textOf(await page(slug))).to.include(`Runs commit ${HEAD.slice(0, 12)} of main , its branch head.`);

    expect((await developer.post(`/instances/${slug}/action`, { action: 'stop' })).status).to.equal(303);
    await player.push(slug, NEWER);
    const during = await page(slug);
    expect(textOf(during)).to.include(`Runs commit ${HEAD.slice(0, 12)} of main ; the branch head is ${NEWER.slice(0, 12)} behind`);
    expect(during).to.include('<span class="badge behind">behind</span>');
    expect(textOf(during)).to.include('A push arrived during this job: a rebuild to the branch head follows.');

    await player.run(slug);
    const rebuilding = await page(slug);
    expect(badgeOf(rebuilding)).to.deep.equal(['busy', 'rebuilding · step 1 of 7']);
    expect(textOf(rebuilding)).to.not.include('A push arrived during this job');
    await player.run(slug, { fetch_code: { commit: NEWER } });
    expect(textOf(await page(slug))).to.include(`Runs commit ${NEWER.slice(0, 12)} of main , its branch head.`);
  });

  it('lists the addons path the build gave the ERP, in order, the repository’s folders by their place in it', async () => {
    const slug = await create('Addons', { git_repo: 'ssh://git@git.example.com/addons.git' });
    const src = `/srv/forja/instances/${slug}/src`;
    const addonsPath = ['/opt/odoo/18.0/addons', src, `${src}/addons`, `${src}/vendor/oca/web_tools`];
    const facts = standinFacts('http://127.0.0.1:18074');
    await player.run(slug, { ...facts, build: { ...facts.build, addonsPath } });
    const html = await page(slug);
    const list = html.slice(html.indexOf('<div class="addons-path'), html.indexOf('</ol>', html.indexOf('<div class="addons-path')));
    expect([...list.matchAll(/<li>([^<]*)<code>([^<]*)<\/code><\/li>/g)].map((match) => `${match[1]}${match[2]}`)).to.deep.equal([
      '/opt/odoo/18.0/addons',
      'repository /',
      'repository /addons',
      'repository /vendor/oca/web_tools',
    ]);
  });

  it('offers the domain’s statuses, in its order, in the list’s filter', async () => {
    const html = (await developer.get('/instances')).html;
    const select = html.slice(html.indexOf('<select name="status"'), html.indexOf('</select>', html.indexOf('<select name="status"')));
    expect([...select.matchAll(/<option value="(\w+)"/g)].map((match) => match[1])).to.deep.equal([...STATUSES]);
  });

  it('tells what a project without a repository runs', async () => {
    const text = textOf((await developer.get('/projects/detail-co')).html);
    expect(text).to.include('No repository: its instances run the standard ERP modules only; set one to build your own addons.');
    expect(text).to.not.include('will need one');
  });
});
