/* global window, document, getComputedStyle */
/**
 * Runs in the page (pageProbes.ts evaluates it): defines `window.forjaProbes`, measurements axe
 * does not make. Plain script, because the tests compile without the DOM's types.
 */
(() => {
  const FOCUSABLE = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]:not([tabindex="-1"])';
  const WHITE = { r: 255, g: 255, b: 255, a: 1 };

  const parse = (css) => {
    const match = /rgba?\(([^)]+)\)/.exec(css);
    if (!match) return undefined;
    const [r, g, b, a = '1'] = match[1].split(/[\s,/]+/).filter(Boolean);
    return { r: Number(r), g: Number(g), b: Number(b), a: Number(a) };
  };
  const over = (top, bottom) => ({ r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a), b: top.b * top.a + bottom.b * (1 - top.a), a: 1 });
  const luminance = ({ r, g, b }) => {
    const [lr, lg, lb] = [r, g, b].map((value) => (value / 255 <= 0.04045 ? value / 255 / 12.92 : ((value / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * lr + 0.7152 * lg + 0.0722 * lb;
  };
  const contrast = (one, other) => {
    const [light, dark] = [luminance(one), luminance(other)].sort((x, y) => y - x);
    return (light + 0.05) / (dark + 0.05);
  };
  /** The colour painted behind `element`: its own and its ancestors' backgrounds, composed. */
  const backgroundOf = (element) => {
    const layers = [];
    for (let node = element; node; node = node.parentElement) {
      const color = parse(getComputedStyle(node).backgroundColor);
      if (color && color.a > 0) layers.push(color);
      if (color && color.a >= 1) break;
    }
    return layers.reverse().reduce((below, layer) => over(layer, below), WHITE);
  };
  const describe = (element) => {
    const text = (element.getAttribute('aria-label') || element.textContent || element.getAttribute('name') || '').replace(/\s+/g, ' ').trim().slice(0, 40);
    return `<${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}> "${text}"`;
  };
  const rendered = (element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden' && !element.disabled && !element.closest('[inert]');

  window.forjaProbes = {
    /**
     * Focuses every control in turn (as a keyboard user reaches it) and reports those whose
     * focus is not a solid outline of 2 px or more with 3:1 against what is behind it, or whose
     * start is outside the viewport's width once focused.
     */
    focusRings() {
      const problems = [];
      for (const element of document.querySelectorAll(FOCUSABLE)) {
        if (!rendered(element)) continue;
        element.focus();
        if (document.activeElement !== element) continue;
        // Its start must be on screen (a long text box may run past the edge, its caret is where the user is).
        const box = element.getBoundingClientRect();
        if (box.left < -1 || box.left > window.innerWidth - 8) problems.push(`${describe(element)} is off-screen when focused (${Math.round(box.left)} to ${Math.round(box.right)} px of ${window.innerWidth})`);
        if (!element.matches(':focus-visible')) {
          problems.push(`${describe(element)} does not show keyboard focus (:focus-visible)`);
          continue;
        }
        const style = getComputedStyle(element);
        if (style.outlineStyle === 'none' || parseFloat(style.outlineWidth) < 2) {
          problems.push(`${describe(element)} has no focus outline of 2 px or more (${style.outlineStyle} ${style.outlineWidth})`);
          continue;
        }
        const behind = backgroundOf(element.parentElement ?? element);
        const ratio = contrast(over(parse(style.outlineColor) ?? WHITE, behind), behind);
        if (ratio < 3) problems.push(`${describe(element)}: its focus outline ${style.outlineColor} is ${ratio.toFixed(2)}:1 against what is behind it`);
      }
      document.activeElement?.blur();
      return problems;
    },
    /** How far the page scrolls sideways, and the elements that stick out past the viewport's right edge. */
    overflow() {
      const width = window.innerWidth;
      const sticking = [...document.body.querySelectorAll('*')].filter((element) => {
        const box = element.getBoundingClientRect();
        return box.right > width + 1 && box.width > 0 && !element.closest('.table-scroll, .log-view, pre, textarea');
      });
      return { scroll: document.documentElement.scrollWidth - width, sticking: sticking.slice(0, 5).map(describe) };
    },
  };
})();
