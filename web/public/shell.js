/* global document, window, WebSocket, navigator, location */
// The web shell page: xterm.js (vendored) on a WebSocket to web, which runs the shell on a pty
// (web/shell/shellMessages.ts describes the frames). Output arrives as binary frames; input and
// resizes go out as JSON text frames. A closed session stays closed until the user reconnects.
(function () {
  'use strict';
  const element = document.querySelector('[data-shell-socket]');
  if (!element || !window.Terminal || !window.FitAddon) return;
  const state = document.getElementById(element.dataset.shellState);
  const reconnect = document.getElementById(element.dataset.shellReconnect);
  const term = new window.Terminal({ cursorBlink: true, fontSize: 14, lineHeight: 1.2, scrollback: 5000, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' });
  const fit = new window.FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(element);
  let socket = null;
  let escapePressed = false;

  const say = (text) => {
    if (state) state.textContent = text;
  };
  const send = (message) => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  const notice = (text) => term.write(`\r\n\x1b[33m[Forja] ${text}\x1b[0m\r\n`);

  // Ctrl+Shift+C copies the selection, Ctrl+Shift+V pastes (the browser's paste, which xterm
  // takes); Escape then Tab leaves the terminal (Tab alone goes to the shell, for completion).
  term.attachCustomKeyEventHandler((event) => {
    if (event.type !== 'keydown') return true;
    if (event.key === 'Tab' && escapePressed) {
      escapePressed = false;
      return false;
    }
    escapePressed = event.key === 'Escape';
    if (event.ctrlKey && event.shiftKey && (event.key === 'C' || event.key === 'c')) {
      const selection = term.getSelection();
      if (selection && navigator.clipboard) navigator.clipboard.writeText(selection).then(() => say('copied'), () => say('the browser refused the clipboard: use its own copy'));
      event.preventDefault();
      return false;
    }
    if (event.ctrlKey && event.shiftKey && (event.key === 'V' || event.key === 'v')) return false;
    return true;
  });

  function connect() {
    fit.fit();
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = `${scheme}//${location.host}${element.dataset.shellSocket}?cols=${term.cols}&rows=${term.rows}`;
    socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    let closedByServer = false;
    reconnect.hidden = true;
    say('connecting…');
    socket.onopen = () => {
      say('connected');
      term.focus();
    };
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return term.write(new Uint8Array(event.data));
      const message = JSON.parse(event.data);
      if (message.type === 'notice') notice(message.text);
      if (message.type === 'closed') {
        closedByServer = true;
        notice(`${message.text} Press Reconnect for a new shell.`);
        say(`closed: ${message.text}`);
      }
    };
    socket.onclose = () => {
      if (!closedByServer) {
        notice('The connection was closed. Press Reconnect for a new shell.');
        say('disconnected');
      }
      reconnect.hidden = false;
      socket = null;
    };
  }

  term.onData((data) => send({ type: 'input', data }));
  term.onResize(({ cols, rows }) => send({ type: 'resize', cols, rows }));
  window.addEventListener('resize', () => element.isConnected && fit.fit());
  // A boosted link (the navigation bar) swaps the page without unloading it: the shell ends with it.
  document.addEventListener('htmx:afterSwap', () => {
    if (!element.isConnected && socket) socket.close();
  });
  reconnect.addEventListener('click', () => {
    term.reset();
    connect();
  });
  connect();
})();
