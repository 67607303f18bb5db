/* global document, window, EventSource, requestAnimationFrame */
/*
 * The live log viewer: follows the element's `data-log-stream` with EventSource (which resumes with
 * Last-Event-ID after a drop), appends lines in batches, and stays at the bottom unless the reader
 * scrolled up. Loaded again by each boosted visit of the page, so it starts each view only once and
 * closes its stream when htmx removes the view.
 */
(() => {
  const MAX_LINES = 5000;

  function follow(view) {
    const state = document.getElementById(view.dataset.logState);
    const say = (text) => {
      if (state) state.textContent = text;
    };
    const stream = new EventSource(view.dataset.logStream);
    let queued = [];

    const flush = () => {
      const atBottom = view.scrollHeight - view.scrollTop - view.clientHeight < 32;
      const lines = document.createDocumentFragment();
      for (const { text, note } of queued) {
        const line = document.createElement('span');
        line.textContent = `${text}\n`;
        if (note) line.className = 'log-note';
        lines.append(line);
      }
      queued = [];
      view.append(lines);
      const extra = view.childElementCount - MAX_LINES;
      for (let i = 0; i < extra; i += 1) view.firstElementChild.remove();
      if (atBottom) view.scrollTop = view.scrollHeight;
      say('live');
    };
    const add = (text, note = false) => {
      if (!view.isConnected) return stream.close();
      if (queued.length === 0) requestAnimationFrame(flush);
      queued.push({ text, note });
    };

    stream.addEventListener('open', () => say('live'));
    stream.addEventListener('message', (event) => add(event.data));
    stream.addEventListener('waiting', () => say('no log yet: waiting for the first line'));
    stream.addEventListener('skipped', (event) => add(`… the first ${event.data} bytes are not shown: download the log to see them`, true));
    stream.addEventListener('truncated', () => add('— the log was truncated or replaced; following it from its start —', true));
    stream.addEventListener('error', () => {
      if (!view.isConnected) return stream.close();
      say(stream.readyState === EventSource.CLOSED ? 'disconnected: reload the page to follow the log again' : 'reconnecting…');
    });
    view.addEventListener('htmx:beforeCleanupElement', () => stream.close());
    window.addEventListener('pagehide', () => stream.close(), { once: true });
  }

  for (const view of document.querySelectorAll('[data-log-stream]')) {
    if (view.dataset.following) continue;
    view.dataset.following = 'true';
    follow(view);
  }
})();
