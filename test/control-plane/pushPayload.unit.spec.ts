import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { decodeHookBody, MAX_BRANCHES_PER_DELIVERY, parsePushPayload, PushPayloadError, TooManyBranchesError, type PushPayload } from '#services/control-plane/hooks/pushPayload.ts';

interface Fixture {
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

const FIXTURES = new URL('./fixtures/push/', import.meta.url);

/** A recorded delivery, with its headers lower-cased as node hands them to express. */
function fixture(name: string): Fixture {
  const { headers, body } = JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as Fixture;
  return { headers: Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value])), body };
}

function refused(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).to.be.instanceOf(PushPayloadError);
    return (error as Error).message;
  }
  throw new Error('expected a PushPayloadError');
}

/** Branches as `name` or `name@head` (the commit the payload says the branch now points at). */
const push = (host: PushPayload['host'], branches: string[], ignored = 0): PushPayload => ({
  host,
  event: 'push',
  pushes: branches.map((entry) => {
    const [branch, head] = entry.split('@') as [string, string | undefined];
    return head ? { branch, head } : { branch };
  }),
  ignored,
});
const HEADS = {
  github: 'feature/afip-wsfe@0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
  gitlab: 'staging@da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
  gitea: 'develop@bffeb74224043ba2feb48d137756c8a9331c449a',
  forgejo: 'release/17.0@7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f',
  bitbucket: ['main@7f2e0f3a95c1f7a1e36bc2d0a8e4b6c9d1f2e3a4', 'feature/afip@c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2'],
  bitbucketServer: 'main@178864a7d521b6f5e720b386b2c2b0ef8563e0dc',
};

describe('push hook payloads', () => {
  describe('each host’s recorded delivery', () => {
    const expected: Record<string, PushPayload> = {
      'github-push': push('github', [HEADS.github]),
      'github-delete': push('github', [], 1),
      'github-tag': push('github', [], 1),
      'github-ping': { host: 'github', event: 'ping', pushes: [], ignored: 0 },
      'gitlab-push': push('gitlab', [HEADS.gitlab]),
      'gitlab-tag-push': push('gitlab', [], 1),
      'gitlab-delete': push('gitlab', [], 1),
      'gitea-push': push('gitea', [HEADS.gitea]),
      'forgejo-push': push('forgejo', [HEADS.forgejo]),
      'bitbucket-push': push('bitbucket', HEADS.bitbucket, 2),
      'bitbucket-server-push': push('bitbucket-server', [HEADS.bitbucketServer], 1),
    };

    it('has an expectation for every fixture', () => {
      const files = readdirSync(FIXTURES).map((file) => file.replace(/\.json$/, ''));
      expect(files.sort()).to.deep.equal(Object.keys(expected).sort());
    });

    for (const [name, result] of Object.entries(expected)) {
      it(`reads ${name}`, () => {
        const { headers, body } = fixture(name);
        expect(parsePushPayload(headers, body)).to.deep.equal(result);
      });
    }
  });

  describe('without the host’s headers, by the body’s shape', () => {
    for (const [name, result] of [
      ['github-push', push('generic', [HEADS.github])],
      ['gitea-push', push('generic', [HEADS.gitea])],
      ['github-delete', push('generic', [], 1)],
      ['github-ping', { host: 'github', event: 'ping', pushes: [], ignored: 0 }],
      ['gitlab-push', push('gitlab', [HEADS.gitlab])],
      ['gitlab-tag-push', push('gitlab', [], 1)],
      ['bitbucket-push', push('bitbucket', HEADS.bitbucket, 2)],
      ['bitbucket-server-push', push('bitbucket-server', [HEADS.bitbucketServer], 1)],
    ] as const) {
      it(`reads ${name}`, () => expect(parsePushPayload({ 'content-type': 'application/json' }, fixture(name).body)).to.deep.equal(result));
    }
  });

  describe('refs', () => {
    const github = (body: Record<string, unknown>) => parsePushPayload({ 'x-github-event': 'push' }, body);

    it('takes a deletion from an all-zero after even without deleted: true', () => {
      expect(github({ ref: 'refs/heads/main', after: '0'.repeat(40) })).to.deep.equal(push('github', [], 1));
      expect(github({ ref: 'refs/heads/main', after: '0'.repeat(64) })).to.deep.equal(push('github', [], 1));
    });

    it('ignores refs that are neither branches nor tags', () => {
      expect(github({ ref: 'refs/notes/commits', after: 'a'.repeat(40) })).to.deep.equal(push('github', [], 1));
      expect(github({ ref: 'refs/pull/7/head', after: 'a'.repeat(40) })).to.deep.equal(push('github', [], 1));
    });

    it('keeps every slash of a branch name, and nothing else', () => {
      expect(github({ ref: 'refs/heads/refs/heads/odd', after: 'a'.repeat(40) })).to.deep.equal(push('github', [`refs/heads/odd@${'a'.repeat(40)}`]));
    });

    it('lists a branch pushed twice in one Bitbucket payload once', () => {
      const change = { old: null, new: { type: 'branch', name: 'main' } };
      expect(parsePushPayload({ 'X-Event-Key': 'repo:push' }, { push: { changes: [change, change] } })).to.deep.equal(push('bitbucket', ['main']));
    });

    it('keeps a branch head only when it is a full commit id, and the last one of a branch pushed twice', () => {
      expect(github({ ref: 'refs/heads/main', after: 'HEAD' })).to.deep.equal(push('github', ['main']));
      const change = (hash: string) => ({ new: { type: 'branch', name: 'main', target: { hash } } });
      expect(parsePushPayload({ 'X-Event-Key': 'repo:push' }, { push: { changes: [change('a'.repeat(40)), change('b'.repeat(40))] } })).to.deep.equal(push('bitbucket', [`main@${'b'.repeat(40)}`]));
    });

    it('reads headers in any case, and the first of a repeated one', () => {
      expect(parsePushPayload({ 'X-GitHub-Event': ['push', 'ping'] }, { ref: 'refs/heads/main' })).to.deep.equal(push('github', ['main']));
    });
  });

  describe('what it refuses, and why', () => {
    it('a body that is not an object', () => {
      for (const body of [null, [], 'refs/heads/main', 3]) expect(refused(() => parsePushPayload({ 'x-github-event': 'push' }, body))).to.equal('the payload is not a JSON object');
    });

    it('a push without a ref', () => {
      expect(refused(() => parsePushPayload({ 'x-github-event': 'push' }, { after: 'a'.repeat(40) }))).to.equal('the payload has no ref');
      expect(refused(() => parsePushPayload({ 'x-gitlab-event': 'Push Hook' }, { object_kind: 'push', ref: 7 }))).to.equal('the payload has no ref');
      expect(refused(() => parsePushPayload({}, { ref: 'refs/heads/' }))).to.equal("the payload's ref names no branch: refs/heads/");
    });

    it('other events of each host', () => {
      expect(refused(() => parsePushPayload({ 'x-github-event': 'pull_request' }, { action: 'opened' }))).to.equal('not a push: X-GitHub-Event pull_request; configure the hook for push events only');
      expect(refused(() => parsePushPayload({ 'x-gitea-event': 'create', 'x-github-event': 'create' }, { ref: 'main' }))).to.match(/^not a push: X-Gitea-Event create/);
      expect(refused(() => parsePushPayload({ 'x-gitlab-event': 'Merge Request Hook' }, { object_kind: 'merge_request' }))).to.match(/^not a push: X-Gitlab-Event Merge Request Hook/);
      expect(refused(() => parsePushPayload({ 'x-gitlab-event': 'System Hook' }, { event_name: 'project_create' }))).to.match(/^not a push: GitLab object_kind project_create/);
      expect(refused(() => parsePushPayload({ 'x-event-key': 'pullrequest:created' }, {}))).to.match(/^not a push: X-Event-Key pullrequest:created/);
    });

    it('a payload it cannot place', () => {
      expect(refused(() => parsePushPayload({}, { hello: 'world' }))).to.match(/^not a push hook: no known event header/);
    });

    it('a Bitbucket change without a branch or tag', () => {
      expect(refused(() => parsePushPayload({ 'x-event-key': 'repo:push' }, { push: {} }))).to.equal('the Bitbucket payload has no push.changes list');
      expect(refused(() => parsePushPayload({ 'x-event-key': 'repo:push' }, { push: { changes: [{ new: { name: 'main' } }] } }))).to.equal(
        'push.changes[0] has no branch or tag with a type and a name',
      );
    });
  });

  describe('decodeHookBody', () => {
    const body = { ref: 'refs/heads/main', after: 'a'.repeat(40) };

    it('reads JSON, with or without a charset, and +json types', () => {
      const raw = Buffer.from(JSON.stringify(body));
      expect(decodeHookBody(raw, 'application/json')).to.deep.equal(body);
      expect(decodeHookBody(raw, 'Application/JSON; charset=utf-8')).to.deep.equal(body);
      expect(decodeHookBody(raw, 'application/vnd.example+json')).to.deep.equal(body);
    });

    it('reads GitHub’s form option: the JSON in the payload field', () => {
      const raw = Buffer.from(new URLSearchParams({ payload: JSON.stringify({ ...body, ref: 'refs/heads/feature/ñandú & co' }) }).toString());
      const decoded = decodeHookBody(raw, 'application/x-www-form-urlencoded');
      expect(parsePushPayload({ 'x-github-event': 'push' }, decoded)).to.deep.equal(push('github', [`feature/ñandú & co@${String(body['after'])}`]));
    });

    it('says what is wrong with a body it cannot read', () => {
      const json = Buffer.from(JSON.stringify(body));
      expect(refused(() => decodeHookBody(json, 'text/plain'))).to.equal('the body must be application/json or application/x-www-form-urlencoded with a payload field, not text/plain');
      expect(refused(() => decodeHookBody(json, undefined))).to.match(/not untyped$/);
      expect(refused(() => decodeHookBody(Buffer.from('ref=refs/heads/main'), 'application/x-www-form-urlencoded'))).to.equal('the form body has no payload field');
      expect(refused(() => decodeHookBody(Buffer.from('payload=%7Bnope'), 'application/x-www-form-urlencoded'))).to.match(/^the form field payload is not valid JSON/);
      expect(refused(() => decodeHookBody(Buffer.from('{"ref":'), 'application/json'))).to.match(/^the body is not valid JSON/);
      expect(refused(() => decodeHookBody(Buffer.alloc(0), 'application/json'))).to.equal('the body is empty');
      expect(refused(() => decodeHookBody(undefined, 'application/json'))).to.equal('the body is empty');
    });
  });
});

describe('the branches of one delivery (issue 10, item 15)', () => {
  /** A Bitbucket Cloud push of `count` changes, each a new commit on branch `b<i % distinct>`. */
  const bitbucket = (count: number, distinct = count) => ({
    push: { changes: Array.from({ length: count }, (_, i) => ({ new: { type: 'branch', name: `b${i % distinct}`, target: { hash: i.toString(16).padStart(40, '0') } }, old: null })) },
  });
  const headers = { 'X-Event-Key': 'repo:push' };

  it(`takes up to ${MAX_BRANCHES_PER_DELIVERY} branches`, () => {
    expect(parsePushPayload(headers, bitbucket(MAX_BRANCHES_PER_DELIVERY)).pushes).to.have.length(MAX_BRANCHES_PER_DELIVERY);
  });

  it('refuses a delivery of 40,000 branches at once, reading no further than the one too many', () => {
    const payload = bitbucket(40_000);
    const started = performance.now();
    expect(() => parsePushPayload(headers, payload)).to.throw(TooManyBranchesError, `the delivery pushes more than ${MAX_BRANCHES_PER_DELIVERY} branches`);
    expect(performance.now() - started).to.be.below(1000);
  });

  it('counts a branch pushed many times once: 40,000 changes of 3 branches are fine, and quick', () => {
    const payload = bitbucket(40_000, 3);
    const started = performance.now();
    expect(parsePushPayload(headers, payload).pushes.map((entry) => entry.branch)).to.deep.equal(['b0', 'b1', 'b2']);
    expect(performance.now() - started).to.be.below(1000);
  });

  it('counts tags and deletions, which build nothing, as ignored rather than as branches', () => {
    const tags = { push: { changes: Array.from({ length: 500 }, (_, i) => ({ new: { type: 'tag', name: `v${i}` }, old: null })) } };
    expect(parsePushPayload(headers, tags)).to.deep.equal(push('bitbucket', [], 500));
  });
});
