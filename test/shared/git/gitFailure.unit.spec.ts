import { expect } from 'chai';
import { classifyRemoteFailure, remoteFailure } from '#shared/git/gitFailure.ts';

describe('what a failed git call says', () => {
  for (const [kind, stderr] of [
    ['auth_failed', 'git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.\n'],
    ['auth_failed', "fatal: could not read Username for 'https://github.com': terminal prompts disabled\n"],
    ['host_key_changed', '@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@@@@@\nHost key verification failed.\nfatal: Could not read from remote repository.\n'],
    ['host_key_changed', 'No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.\n'],
    ['not_found', "fatal: '/srv/x.git' does not appear to be a git repository\nfatal: Could not read from remote repository.\n"],
    ['not_found', 'ERROR: Repository not found.\nfatal: Could not read from remote repository.\n'],
    ['not_found', "remote: Not Found\nfatal: repository 'https://example.com/x.git/' not found\n"],
    ['unreachable', 'ssh: connect to host 127.0.0.1 port 1: Connection refused\n'],
    ['unreachable', 'ssh: Could not resolve hostname git.nowhere.example: Name or service not known\n'],
    ['unreachable', 'ssh: connect to host 10.0.0.9 port 22: No route to host\n'],
    ['unreachable', 'ssh: connect to host 10.0.0.9 port 22: Network is unreachable\n'],
    ["unreachable", "fatal: unable to access 'https://127.0.0.1:1/x.git/': Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server\n"],
    ['timeout', 'ssh: connect to host 10.0.0.9 port 22: Connection timed out\n'],
    ['unreadable', 'fatal: protocol error: bad line length character: SSH-\n'],
  ] as const) {
    it(`reads ${kind} in ${JSON.stringify(stderr.split('\n')[0])}`, () => expect(classifyRemoteFailure(stderr)).to.equal(kind));
  }

  it('says in plain words what to do, naming the repository and never the remote’s words', () => {
    const url = 'ssh://git@git.example.com/acme/erp.git';
    expect(remoteFailure('auth_failed', url).message).to.equal(`the repository refused the project's SSH keys: add the public key of one of them as a deploy key of ${url}`);
    expect(remoteFailure('auth_failed', 'https://example.com/x.git').message).to.equal(
      'the repository https://example.com/x.git asks for credentials the platform does not have: make it readable without them, or use its ssh URL with a project SSH key',
    );
    expect(remoteFailure('not_found', url, 'submodule libs/x of ssh://git@git.example.com/acme/top.git').message).to.equal(
      `submodule libs/x of ssh://git@git.example.com/acme/top.git (${url}) was not found: check the URL, and that one of the project's SSH keys is a deploy key of it (hosts also answer "not found" to a key without access)`,
    );
    expect(remoteFailure('host_key_changed', 'ssh://git@127.0.0.1:2222/x.git').message).to.match(/^the SSH host key of \[127\.0\.0\.1\]:2222 is not the one pinned for it/);
    expect(remoteFailure('unreachable', url).message).to.equal(`could not connect to the host of the repository ${url}: check its host name and port, and that the platform can reach it`);
    expect(remoteFailure('timeout', url).message).to.equal(`the host of the repository ${url} did not answer in time: check that the platform can reach it, then try again`);
    const error = remoteFailure('unreadable', 'https://deploy:s3cret@example.com/x.git', undefined, 'remote: secret banner');
    expect(error.message).to.equal('could not reach the repository https://***@example.com/x.git (see the instance log)');
    expect(error.stderr).to.equal('remote: secret banner');
  });
});
