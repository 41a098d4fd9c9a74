// Mizan: scroll one element into view once, when a page is opened on it (ui/scroll.py).
// Streamlit components v2 (no iframe), no dependencies, draws nothing.
//
//   Python -> JS  data = {selector, covered_by}
//
// Streamlit draws the page in pieces: the element may not exist yet, and what is drawn above
// it later (charts, formulas, fonts) pushes it down. So for a short while the element is put
// back at the top on every frame it has moved, until the reader scrolls, taps or presses a
// key: from then on the page is hers.

const DONE = new WeakSet(); // marker elements already handled: one scroll per mounting
const SETTLE_MS = 4000; // how long the element is followed while the page is drawn
const GIVE_UP_MS = 15000; // stop waiting for an element that never comes

function scroller(el) {
  for (let node = el.parentElement; node; node = node.parentElement) {
    const style = getComputedStyle(node).overflowY;
    if ((style === "auto" || style === "scroll") && node.scrollHeight > node.clientHeight) {
      return node;
    }
  }
  return document.scrollingElement || document.documentElement;
}

function coverBottom(selector) {
  // Fixed or sticky things over the top: Streamlit's header, and the page's own (a strip).
  let bottom = 0;
  const header = document.querySelector("[data-testid=stHeader]");
  if (header) bottom = Math.max(bottom, header.getBoundingClientRect().bottom);
  const cover = selector ? document.querySelector(selector) : null;
  if (cover) {
    // the element that sticks is the strip's container: once stuck it sits at its `top`
    const sticky = cover.closest("[data-testid=stElementContainer]") || cover;
    const stuckAt = parseFloat(getComputedStyle(sticky).top) || 0;
    const box = sticky.getBoundingClientRect();
    const own = cover.getBoundingClientRect();
    // stuck now: where it is; not yet: where it will be once the page has scrolled
    bottom = Math.max(bottom, box.top <= stuckAt + 1 ? own.bottom : stuckAt + own.bottom - box.top);
  }
  return bottom;
}

export default function mountScrollIntoView(component) {
  const { data, parentElement } = component;
  const marker = parentElement.querySelector(".mz-land");
  if (!marker || DONE.has(marker)) return undefined;
  DONE.add(marker);
  const selector = String((data && data.selector) || "");
  const covered = String((data && data.covered_by) || "");
  if (!selector) return undefined;

  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  const events = ["wheel", "touchstart", "keydown", "mousedown"];
  for (const name of events) window.addEventListener(name, stop, { capture: true, passive: true, once: true });

  const start = performance.now();
  let found = null;
  function step() {
    if (stopped) return;
    const now = performance.now();
    const el = document.querySelector(selector);
    if (el && el.getBoundingClientRect().height > 0) {
      if (found === null) found = now;
      const gap = el.getBoundingClientRect().top - coverBottom(covered) - 8;
      if (Math.abs(gap) > 2) {
        const box = scroller(el);
        box.scrollTop += gap;
      }
    }
    if (found === null ? now - start < GIVE_UP_MS : now - found < SETTLE_MS) {
      requestAnimationFrame(step);
    } else {
      for (const name of events) window.removeEventListener(name, stop, { capture: true });
    }
  }
  requestAnimationFrame(step);
  return undefined;
}
