/** The clock an idle timer reads and schedules on; tests pass one they move by hand. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface IdleTimer {
  /** Input arrived: the idle time starts again. Cheap, called on every keystroke (no timer is reset). */
  touch(): void;
  stop(): void;
}

/**
 * Calls `onIdle` once `timeoutMs` pass without a `touch`. One timer at a time: when it fires
 * early (input came meanwhile) it is set again for what is left.
 */
export function idleTimer(timeoutMs: number, onIdle: () => void, clock: Clock = systemClock): IdleTimer {
  let last = clock.now();
  let stopped = false;
  let handle: unknown;
  const check = () => {
    if (stopped) return;
    const idle = clock.now() - last;
    if (idle >= timeoutMs) {
      stopped = true;
      onIdle();
    } else handle = clock.setTimeout(check, timeoutMs - idle);
  };
  handle = clock.setTimeout(check, timeoutMs);
  return {
    touch: () => {
      last = clock.now();
    },
    stop: () => {
      stopped = true;
      clock.clearTimeout(handle);
    },
  };
}
