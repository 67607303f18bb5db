/* global document, getComputedStyle */
/*
 * The recipe editor's extras; the textarea works without them. Adds a line-number gutter that
 * scrolls with the text, marks the lines lint found something on, and moves the caret to a
 * finding's line and column when its link is followed. Loaded again by each boosted visit of the
 * page, so each editor is set up once.
 */
(() => {
  function offsetOf(text, line, column) {
    let offset = 0;
    for (let current = 1; current < line; current++) {
      const next = text.indexOf('\n', offset);
      if (next < 0) return text.length;
      offset = next + 1;
    }
    return Math.min(offset + Math.max(column - 1, 0), text.length);
  }

  function setUp(editor) {
    if (editor.dataset.ready) return;
    editor.dataset.ready = 'true';
    const area = editor.querySelector('textarea');
    const findings = JSON.parse(editor.dataset.findings || '[]');
    const marks = new Map();
    for (const finding of findings) {
      const known = marks.get(finding.line);
      if (!known || finding.level === 'error') marks.set(finding.line, finding);
    }
    const gutter = document.createElement('div');
    gutter.className = 'recipe-gutter';
    gutter.setAttribute('aria-hidden', 'true');
    editor.classList.add('with-gutter');
    editor.prepend(gutter);

    const draw = () => {
      const count = area.value.split('\n').length;
      if (gutter.childElementCount === count) return;
      const lines = document.createDocumentFragment();
      for (let line = 1; line <= count; line++) {
        const number = document.createElement('span');
        number.textContent = String(line);
        const mark = marks.get(line);
        if (mark) {
          number.className = `mark-${mark.level}`;
          number.title = mark.message;
        }
        lines.append(number);
      }
      gutter.replaceChildren(lines);
    };
    draw();
    area.addEventListener('input', draw);
    area.addEventListener('scroll', () => {
      gutter.scrollTop = area.scrollTop;
    });

    for (const link of document.querySelectorAll('.goto-line')) {
      link.addEventListener('click', (event) => {
        event.preventDefault();
        const offset = offsetOf(area.value, Number(link.dataset.line), Number(link.dataset.column));
        area.focus();
        area.setSelectionRange(offset, offset);
        // Bring the line into view: about one line's height per line above it.
        const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
        area.scrollTop = Math.max(0, (Number(link.dataset.line) - 5) * lineHeight);
      });
    }
  }

  for (const editor of document.querySelectorAll('.recipe-editor')) setUp(editor);
})();
