import type { RequestHandler, Response } from 'express';

const CANCEL = 'cancelBodyDeadline';

/**
 * Gives every request `ms` to deliver its whole body, counted from its arrival; a request still
 * sending then gets 408 and its connection is closed. Node's own `requestTimeout` is one value for
 * the whole server, and web needs hours for dump uploads: with it as the only bound, anyone could
 * hold connections open for hours by sending a form body a byte at a time. The upload route lifts
 * the deadline (`allowSlowBody`) once its guards have let the request in.
 */
export function bodyDeadline(ms: number): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      // `complete`: the whole body arrived (a request without one is complete at once).
      if (req.complete) return;
      if (!res.headersSent) {
        res.status(408).set({ Connection: 'close', 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`The request body did not arrive within ${Math.round(ms / 1000)} s.\n`, () => req.socket.destroy());
      } else req.socket.destroy();
    }, ms);
    const cancel = () => clearTimeout(timer);
    res.locals[CANCEL] = cancel;
    // The request's close, not the response's: an answer sent early (a redirect to sign in) does not
    // end the body, which Node then reads and discards, and a sender could trickle it for hours.
    req.once('close', cancel);
    next();
  };
}

/** Lifts the deadline of this request: the route reads a long body (a dump upload) and has checked who sends it. */
export function allowSlowBody(res: Response): void {
  (res.locals[CANCEL] as (() => void) | undefined)?.();
}
