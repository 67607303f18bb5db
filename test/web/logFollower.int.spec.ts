import { appendFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { createFsBlobStore, type FsBlobStore } from '#shared/blobs/fsBlobStore.ts';
import { runDir } from '#test/support/runDir.ts';
import { waitUntil } from '#test/support/wait.ts';
import { followLog, type LogNotice } from '#web/instances/logFollower.ts';

const KEY = 'instances/acme/logs/erp.log';

describe('web: the log follower, over the blob store', () => {
  let blobs: FsBlobStore;
  let stop: AbortController;
  let following: Promise<void>;
  let notices: LogNotice[];

  const follow = (from?: number, backlogBytes = 1024 * 1024) => {
    notices = [];
    stop = new AbortController();
    following = followLog({ blobs, key: KEY, from, backlogBytes, pollMs: 10, partialLineMs: 50, signal: stop.signal, send: async (notice) => void notices.push(notice) });
  };
  const seen = (what: string) => waitUntil(() => notices.some((notice) => notice.kind === 'line' && notice.text === what), `the line ${what}`);
  const put = (text: string) => blobs.put(KEY, Readable.from([Buffer.from(text)]));

  beforeEach(() => (blobs = createFsBlobStore(runDir('follow'))));
  afterEach(async () => {
    stop.abort();
    await following;
  });

  it('waits for a log that is not there yet, then sends its lines with their end offsets', async () => {
    follow();
    await waitUntil(() => notices.length > 0, 'a first notice');
    expect(notices).to.deep.equal([{ kind: 'waiting' }]);
    await put('one\ntwo\n');
    await seen('two');
    appendFileSync(blobs.pathOf(KEY), 'three\n');
    await seen('three');
    expect(notices.slice(1)).to.deep.equal([
      { kind: 'line', text: 'one', offset: 4 },
      { kind: 'line', text: 'two', offset: 8 },
      { kind: 'line', text: 'three', offset: 14 },
    ]);
  });

  it('starts again at 0 when the log is replaced by a new one, even a longer one', async () => {
    await put('old\n');
    follow();
    await seen('old');
    await put('a new log, longer than the old\n');
    await seen('a new log, longer than the old');
    expect(notices.slice(1)).to.deep.equal([{ kind: 'truncated' }, { kind: 'line', text: 'a new log, longer than the old', offset: 31 }]);
  });

  it('gives a new reader only the last backlog, from the start of a line, saying how much it skipped', async () => {
    await put(`${'x'.repeat(100)}\nkept one\nkept two\n`);
    follow(undefined, 20);
    await seen('kept two');
    expect(notices).to.deep.equal([
      { kind: 'skipped', bytes: 101 },
      { kind: 'line', text: 'kept one', offset: 110 },
      { kind: 'line', text: 'kept two', offset: 119 },
    ]);
  });
});
