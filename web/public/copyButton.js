/* global document, Element, navigator, setTimeout */
// "Copy" buttons: data-copy names the element whose text goes to the clipboard. Without
// JavaScript the public key stays selectable in its read-only field.
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  const text = 'value' in source ? source.value : source.textContent;
  const label = button.firstChild;
  const before = label.textContent;
  try {
    await navigator.clipboard.writeText(text.trim());
    label.textContent = 'Copied';
  } catch {
    // No clipboard (plain http on another host): select the text for Ctrl+C instead.
    if ('select' in source) source.select();
    label.textContent = 'Press Ctrl+C';
  }
  setTimeout(() => (label.textContent = before), 2000);
});
