// Mizan: ready HTML drawn in the page without React or DOMPurify (ui/html_view.py).
// Streamlit components v2, mounted in the page (no iframe, no shadow root), no dependencies.
//
//   Python -> JS  data = the markup as UTF-8 bytes; the server escaped its text
//                 (bidi.escape_html).
//
// The markup is parsed in an inert <template> (no script runs, nothing loads), then checked
// against a short list of tags and attributes (anything else is dropped: a second line of
// defence behind the server's escaping, in the spirit of st.html's sanitiser, at a fraction
// of its cost), and only then put in the page. Drawn again only when the markup changes.

const TAGS = new Set([
  "DIV", "SECTION", "P", "STRONG", "EM", "SPAN", "BDI", "OL", "UL", "LI", "DETAILS", "SUMMARY",
  "CODE", "BR", "TABLE", "THEAD", "TBODY", "TR", "TH", "TD",
]);
const ATTRS = new Set(["class", "id", "dir", "lang", "aria-label", "data-system"]);
const DECODER = new TextDecoder();
const SHOWN = new WeakMap(); // host element -> the markup it shows

function clean(root) {
  // Depth first, children before the next sibling; a dropped element goes with its contents.
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_COMMENT);
  const drop = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType !== Node.ELEMENT_NODE || !TAGS.has(node.tagName)) {
      drop.push(node);
      continue;
    }
    for (const attr of [...node.attributes]) {
      if (!ATTRS.has(attr.name)) node.removeAttribute(attr.name);
    }
  }
  for (const node of drop) node.remove();
}

export default function mountHtmlView(component) {
  const { data, parentElement } = component;
  const host = parentElement.querySelector(".mz-html-view");
  if (!host) return undefined;
  const html = data instanceof Uint8Array ? DECODER.decode(data) : "";
  if (SHOWN.get(host) === html) return undefined;
  const template = document.createElement("template");
  template.innerHTML = html;
  clean(template.content);
  host.replaceChildren(template.content);
  SHOWN.set(host, html);
  if (!host.classList.contains("mz-settled")) settleWhenIdle(host);
  return undefined;
}

// The page's CSS may let the browser skip laying out what is out of view in the first frame
// (/retrieve's passages: content-visibility). Once the browser is idle, "mz-settled" lets it lay
// out the rest, so the page stops changing height while someone scrolls it and an element
// below does not move under the pointer as it comes into view. A host keeps it for every later
// redraw: dropped, a grade click made the rankings ~100 px shorter for a few frames (the
// unseen passages back at their placeholder height), and the panel under the pointer jumped.
function settleWhenIdle(host) {
  const settle = () => host.classList.add("mz-settled");
  if (window.requestIdleCallback) window.requestIdleCallback(settle, { timeout: 1000 });
  else window.setTimeout(settle, 200);
}
