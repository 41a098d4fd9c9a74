// Mizan page semantics: what Streamlit 1.67 does not let a page say about itself.
// Streamlit components v2 (no iframe), no dependencies, no network, draws nothing.
//
//   Python -> JS  data = {lang, dir, names: [[english, translated]...], patterns:
//                 [[englishWithStar, translatedWithStar]...], labelled: [[selector, name]...],
//                 latin: [[selector, lang]...], scroll_name, overlay_max}
//
// * <html lang dir> follow the page's language (Streamlit hard-codes lang="en", no dir),
//   and so does React Aria's locale (the slider's direction).
// * Streamlit's own English accessible names (aria-label, title, placeholder) are replaced
//   by the page language's (`names`, and `patterns` where "*" stands for a variable part
//   such as a chosen option). The original is kept so an English page gets it back.
// * `labelled`: elements whose visible English text the RTL stylesheet redraws with CSS
//   content get the same words as their accessible name (generated content is not read
//   by every screen reader, and the hidden English must not be the name).
// * `own_lang`: a sidebar button whose text is in another language by design (the language
//   switch's "English") carries that language, so a screen reader pronounces it right.
// * `landmarks`: containers of ours that are landmarks (the sidebar's page links: a named
//   navigation), which Streamlit's containers cannot declare.
// * Horizontally scrolling tables, formulas and code blocks become keyboard-reachable (tabindex 0) with
//   a name, only while they actually overflow.
// * On a narrow screen, where the sidebar covers the page, choosing a page in the sidebar
//   closes it (Streamlit does this only for phone user agents).
// A MutationObserver re-applies all this as Streamlit redraws; it never changes what
// React renders (only attributes React does not set, or ones it sets once).

const ORIGINAL = new WeakMap(); // element -> {attr: English value it had}
const ATTRS = ["aria-label", "title", "placeholder", "aria-roledescription"];
const SCROLLERS = "[data-testid=stMarkdownContainer] table, .katex-display, .mz-scroll, [data-testid=stCode] pre";
let state = null;
let observer = null;
let queued = false;

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function compile(data) {
  const exact = new Map((data.names || []).map(([en, tr]) => [String(en), String(tr)]));
  const patterns = (data.patterns || []).map(([en, tr]) => {
    const parts = String(en).split("*").map(escapeRegExp);
    return { re: new RegExp(`^${parts.join("(.+)")}$`), to: String(tr) };
  });
  return {
    lang: data.lang === "en" ? "en" : "ar",
    dir: data.dir === "ltr" ? "ltr" : "rtl",
    // Western digits in anything React Aria formats (the app's default digit style)
    locale: data.lang === "en" ? "en-US" : `${data.lang || "ar"}-u-nu-latn`,
    exact,
    patterns,
    labelled: data.labelled || [],
    ownLang: new Map(data.own_lang || []),
    landmarks: data.landmarks || [],
    scrollName: String(data.scroll_name || ""),
    overlayMax: Number(data.overlay_max) || 768,
    translate: data.lang !== "en",
  };
}

function translated(value) {
  if (state.exact.has(value)) return state.exact.get(value);
  for (const { re, to } of state.patterns) {
    const m = value.match(re);
    if (m) return to.replace("*", m[1]);
  }
  return null;
}

function fixAttributes(el) {
  for (const attr of ATTRS) {
    if (!el.hasAttribute(attr)) continue;
    const value = el.getAttribute(attr);
    const saved = ORIGINAL.get(el) || {};
    if (!state.translate) {
      if (attr in saved && value === saved[attr].to) el.setAttribute(attr, saved[attr].en);
      continue;
    }
    if (attr in saved && value === saved[attr].to) continue;
    const to = translated(value);
    if (to === null || to === value) continue;
    saved[attr] = { en: value, to };
    ORIGINAL.set(el, saved);
    // Streamlit's English name stays readable for the stylesheet (rtl.css keys tooltips on it).
    if (attr === "aria-label") el.dataset.mzName = value;
    el.setAttribute(attr, to);
  }
}

function fixAll(root) {
  const els = root.querySelectorAll(ATTRS.map((a) => `[${a}]`).join(","));
  for (const el of els) fixAttributes(el);
  for (const [selector, name] of state.labelled) {
    for (const el of root.querySelectorAll(selector)) {
      if (state.translate) {
        if (el.getAttribute("aria-label") !== name) el.setAttribute("aria-label", name);
        el.dataset.mzLabelled = "1";
      } else if (el.dataset.mzLabelled) {
        el.removeAttribute("aria-label");
        delete el.dataset.mzLabelled;
      }
    }
  }
  if (state.ownLang.size) {
    for (const el of root.querySelectorAll("[data-testid=stSidebarUserContent] button")) {
      const lang = state.ownLang.get(el.textContent.trim());
      if (lang && el.getAttribute("lang") !== lang) el.setAttribute("lang", lang);
    }
  }
  for (const [selector, role, name] of state.landmarks) {
    for (const el of root.querySelectorAll(selector)) {
      if (el.getAttribute("role") !== role) el.setAttribute("role", role);
      if (el.getAttribute("aria-label") !== name) el.setAttribute("aria-label", name);
    }
  }
  // Streamlit's slider input is named by aria-labelledby = itself and the widget's label,
  // while its own aria-label already is that label: screen readers said it twice.
  for (const input of root.querySelectorAll("[data-testid=stSlider] input[aria-label][aria-labelledby]")) {
    const ids = input.getAttribute("aria-labelledby").split(/\s+/);
    if (ids.length > 1 && input.id && ids.includes(input.id)) {
      input.setAttribute("aria-labelledby", input.id);
    }
  }
  // The uploader's drop zone: role "presentation" with a name is a contradiction (axe:
  // presentation-role-conflict; browsers then expose it as a landmark). A named group it is.
  for (const el of root.querySelectorAll("[data-testid=stFileUploaderDropzone][role=presentation]")) {
    el.setAttribute("role", "group");
  }
  for (const el of root.querySelectorAll(SCROLLERS)) {
    const scrolls = el.scrollWidth > el.clientWidth + 1;
    if (scrolls && !el.hasAttribute("tabindex")) {
      el.setAttribute("tabindex", "0");
      el.dataset.mzScroll = "1";
    } else if (!scrolls && el.dataset.mzScroll) {
      el.removeAttribute("tabindex");
      delete el.dataset.mzScroll;
    }
    if (el.dataset.mzScroll && (!el.hasAttribute("aria-label") || el.dataset.mzScrollName)) {
      if (el.tagName !== "TABLE") el.setAttribute("role", "group");
      if (el.getAttribute("aria-label") !== state.scrollName) {
        el.setAttribute("aria-label", state.scrollName);
      }
      el.dataset.mzScrollName = "1";
    } else if (!el.dataset.mzScroll && el.dataset.mzScrollName) {
      el.removeAttribute("aria-label");
      if (el.tagName !== "TABLE") el.removeAttribute("role");
      delete el.dataset.mzScrollName;
    }
  }
}

// React Aria (Streamlit's slider) takes its locale, hence its direction, from this symbol
// and re-reads it on "languagechange": in Arabic the slider then runs right to left (its
// minimum on the right, pointer and arrow keys following what the learner sees).
const LOCALE = Symbol.for("react-aria.i18n.locale");

function applyDocument() {
  const html = document.documentElement;
  if (html.getAttribute("lang") !== state.lang) html.setAttribute("lang", state.lang);
  if (html.getAttribute("dir") !== state.dir) html.setAttribute("dir", state.dir);
  if (window[LOCALE] !== state.locale) {
    window[LOCALE] = state.locale;
    window.dispatchEvent(new Event("languagechange"));
  }
}

function schedule() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    if (!state) return;
    applyDocument();
    fixAll(document);
  });
}

function onClick(event) {
  // Choosing a page in the sidebar on a narrow screen: close the sidebar like a phone menu.
  const link = event.target.closest && event.target.closest("[data-testid=stSidebar] a[href]");
  if (!link || !state || window.innerWidth > state.overlayMax) return;
  setTimeout(() => {
    const close = document.querySelector("[data-testid=stSidebarCollapseButton] button");
    if (close) close.click();
  }, 0);
}

function start() {
  if (observer) return;
  observer = new MutationObserver(schedule);
  observer.observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: [...ATTRS, "lang", "dir", "role", "aria-labelledby"],
  });
  document.addEventListener("click", onClick, true);
  window.addEventListener("resize", schedule);
}

export default function mountPageSemantics(component) {
  state = compile(component.data || {});
  start();
  applyDocument();
  fixAll(document);
  return undefined;
}
