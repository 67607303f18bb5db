import { expect } from 'chai';
import { resolveSubmoduleUrl } from '#shared/git/submoduleUrl.ts';

/** What `git submodule init` (git 2.39) wrote as submodule.x.url for each parent URL and .gitmodules URL. */
const GIT_SAYS = [
  ['ssh://git@h:2222/org/top.git', '../lib.git', 'ssh://git@h:2222/org/lib.git'],
  ['ssh://git@h/org/top.git', './lib.git', 'ssh://git@h/org/top.git/lib.git'],
  ['git@github.com:org/top.git', '../lib.git', 'git@github.com:org/lib.git'],
  ['git@github.com:top.git', '../lib.git', 'git@github.com:lib.git'],
  ['git@github.com:org/top.git', '../../other/lib.git', 'git@github.com:other/lib.git'],
  ['https://h.example/org/top.git/', '../lib.git', 'https://h.example/org/lib.git'],
  ['file:///srv/git/top.git', '../lib.git', 'file:///srv/git/lib.git'],
  ['/srv/git/top.git', '../sub/lib.git/', '/srv/git/sub/lib.git'],
  ['ssh://h/top.git', '../../x.git', 'ssh://x.git'],
  ['git@h:org/top', './../x.git', 'git@h:org/x.git'],
  ['ssh://git@h/org/top.git', 'ssh://git@elsewhere/lib.git', 'ssh://git@elsewhere/lib.git'],
  ['ssh://git@h/org/top.git', 'git@elsewhere:lib.git', 'git@elsewhere:lib.git'],
] as const;

describe('a submodule URL resolved against its parent', () => {
  for (const [parent, url, resolved] of GIT_SAYS) {
    it(`${url} of ${parent} is ${resolved}, as git says`, () => expect(resolveSubmoduleUrl(parent, url)).to.equal(resolved));
  }
});
