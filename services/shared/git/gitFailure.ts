import { GitSourceError, maskCredentials } from './gitCommand.ts';
import { endpointName, sshEndpoint } from './sshEndpoint.ts';

/** What went wrong between git and a remote, as far as git's messages tell. */
export type RemoteFailureKind = 'auth_failed' | 'host_key_changed' | 'not_found' | 'unreachable' | 'timeout' | 'unreadable';

/** In the order they are tried: ssh's host-key refusal ends like a refused login, so it comes first. */
const SIGNS: ReadonlyArray<readonly [RemoteFailureKind, RegExp]> = [
  ['host_key_changed', /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/],
  ['auth_failed', /Permission denied \(publickey|Authentication failed for|could not read (Username|Password) for|terminal prompts disabled/i],
  ['not_found', /does not appear to be a git repository|Repository not found|not found/i],
  ['timeout', /Connection timed out|Operation timed out|timed out/i],
  [
    'unreachable',
    /Connection refused|Could not resolve hostname|Could not resolve host|No route to host|Network is unreachable|Couldn't connect to server|Failed to connect to|unable to connect to|Connection closed by remote host|kex_exchange_identification/i,
  ],
];

/**
 * The kind of a failed git call's `stderr` (git's, ssh's and curl's words, and whatever the remote
 * said); `unreadable` when nothing tells. Only the kind may reach an error message: the words
 * themselves stay in the log, since a remote's answer would let whoever sets a URL probe what
 * the platform can reach.
 */
export function classifyRemoteFailure(stderr: string): RemoteFailureKind {
  return SIGNS.find(([, sign]) => sign.test(stderr))?.[0] ?? 'unreadable';
}

/**
 * The error for a repository git could not read, in plain words with what to do next. `where`
 * places a submodule (`submodule libs/x of <url>`); without it the URL is the repository's.
 */
export function remoteFailure(kind: RemoteFailureKind, url: string, where?: string, stderr = ''): GitSourceError {
  return new GitSourceError(kind, remoteFailureMessage(kind, url, where), stderr);
}

export function remoteFailureMessage(kind: RemoteFailureKind, url: string, where?: string): string {
  const shown = maskCredentials(url);
  const subject = where ? `${where} (${shown})` : `the repository ${shown}`;
  const endpoint = sshEndpoint(url);
  switch (kind) {
    case 'auth_failed':
      return endpoint
        ? `${where ?? 'the repository'} refused the project's SSH keys: add the public key of one of them as a deploy key of ${shown}`
        : `${subject} asks for credentials the platform does not have: make it readable without them, or use its ssh URL with a project SSH key`;
    case 'host_key_changed':
      return `the SSH host key of ${endpoint ? endpointName(endpoint) : shown} is not the one pinned for it, so ${subject} was not read; if the server's key really changed, an admin can forget the pinned key on the project page`;
    case 'not_found':
      return endpoint
        ? `${subject} was not found: check the URL, and that one of the project's SSH keys is a deploy key of it (hosts also answer "not found" to a key without access)`
        : `${subject} was not found: check the URL (hosts also answer "not found" to a private repository)`;
    case 'unreachable':
      return `could not connect to the host of ${subject}: check its host name and port, and that the platform can reach it`;
    case 'timeout':
      return `the host of ${subject} did not answer in time: check that the platform can reach it, then try again`;
    case 'unreadable':
      return `could not reach ${subject} (see the instance log)`;
  }
}
