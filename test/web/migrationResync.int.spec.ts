import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getMigration } from '#projections/erpMigrations/migrationDetail.ts';
import { RECIPE_FILES_DIR } from '#services/migrations/recipes/recipeFiles.ts';
import { startWebPlatform, type WebPlatform } from '#test/support/webPlatform.ts';
import { textOf } from '#test/support/webSession.ts';

describe('web: the resync page', function () {
  this.timeout(120_000);
  let platform: WebPlatform;

  before(async () => {
    platform = await startWebPlatform();
  });
  after(() => platform?.stop());

  it('shows what differs once the recipe changed, and adopts it for a developer', async () => {
    const developer = await platform.signedIn('developer');
    const created = await developer.post('/migrations/new', { name: 'Resync me', origin: '16.0', destination: '17.0', pull_url: 'https://files.example.com/a.dump' });
    expect(created.status).to.equal(303);
    expect(textOf((await developer.get('/migrations/resync-me/resync')).html)).to.include('already follows the current recipe');
    const admin = await platform.signedIn('admin');
    const shipped = await readFile(join(RECIPE_FILES_DIR, 'community', '16.0-17.0.yaml'), 'utf8');
    expect((await admin.post('/admin/recipes/save', { key: 'community.16.0-17.0', yaml: shipped.replace('    timeout: 8h\n', '    timeout: 9h\n'), action: 'save' })).status).to.equal(303);
    const page = await developer.get('/migrations/resync-me/resync');
    expect(textOf(page.html)).to.include('Steps that differ (1)').and.include('upgrade').and.include('timeoutS');
    expect(page.html).to.include('value="adopt"');
    const before = (await getMigration(platform.infra.db.withSchema('read_model'), 'resync-me'))?.recipe_sha256;
    const adopted = await developer.post('/migrations/resync-me/resync', { decision: 'adopt' });
    expect(adopted.status).to.equal(303);
    expect(adopted.location).to.equal('/migrations/resync-me');
    expect((await getMigration(platform.infra.db.withSchema('read_model'), 'resync-me'))?.recipe_sha256).to.not.equal(before);
    const again = await developer.post('/migrations/resync-me/resync', { decision: 'keep' });
    expect(again.location).to.equal('/migrations/resync-me/resync');
    expect(textOf((await developer.get('/migrations/resync-me/resync')).html)).to.include('already follows the current recipe');
    expect((await developer.get('/migrations/nobody/resync')).status).to.equal(404);
  });
});
