// Mizan ranking editor: a reorderable list with relevance editing.
// Streamlit components v2 (no iframe), plain DOM, no dependencies, no network.
//
// Data flow (see ranking_editor.py): Python's items are the source of truth.
//   Python -> JS  data = {v, ack, mode, max, dir, lang, editable, labels, items:[{id,title,rel}]}
//   JS -> Python  trigger "edit" = {base: v, seq, items: [[id, rel], ...]}  (full state)
// The JS shows a local edit at once (optimistic) and sends it.  It re-renders
// from Python's items whenever Python's version changes (reset, shuffle, a
// loaded link...) or, once every local edit is acknowledged, whenever Python's
// items differ from what is on screen.
//
// Security: every data string is written with textContent / attributes, never
// parsed as HTML.

const INSTANCES = new WeakMap();
const SVG_NS = "http://www.w3.org/2000/svg";
const ICONS = {
  up: "M6 15l6-6 6 6",
  down: "M6 9l6 6 6-6",
  check: "M5 12.5l4.5 4.5L19 7.5",
  cross: "M7 7l10 10M17 7L7 17",
};
const DRAG_THRESHOLD_PX = 4;
// A finger on a row's body picks the row up after a short press; moving further than
// PRESS_SLOP_PX before that is a swipe, and the page scrolls as usual.
const LONG_PRESS_MS = 300;
const PRESS_SLOP_PX = 8;
const AUTOSCROLL_EDGE_PX = 56;
const RESEND_AFTER_MS = 4000;
const RESEND_TRIES = 3;

function icon(name) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.classList.add("rk-icon");
  const path = document.createElementNS(SVG_NS, "path");
  path.setAttribute("d", ICONS[name]);
  svg.appendChild(path);
  return svg;
}

function el(tag, cls, attrs) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (attrs) for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function fill(template, values) {
  return String(template).replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
}

function toInt(value) {
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

function normaliseItems(items) {
  if (!Array.isArray(items)) return [];
  return items.map((it) => ({
    id: String(it && it.id != null ? it.id : ""),
    title: it && it.title != null ? String(it.title) : "",
    rel: toInt(it && it.rel),
  }));
}

function sameItems(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i].id !== b[i].id || a[i].rel !== b[i].rel || a[i].title !== b[i].title) return false;
  }
  return true;
}

function scrollParent(node) {
  let cur = node;
  while (cur) {
    if (cur instanceof ShadowRoot) {
      cur = cur.host;
      continue;
    }
    if (cur instanceof Element && cur !== document.body && cur !== document.documentElement) {
      const oy = getComputedStyle(cur).overflowY;
      if ((oy === "auto" || oy === "scroll") && cur.scrollHeight > cur.clientHeight) return cur;
    }
    cur = cur.parentNode;
  }
  return document.scrollingElement || document.documentElement;
}

class RankingEditor {
  constructor(root) {
    this.root = root;
    this.nodes = new Map(); // id -> {li, num, idEl, title, rel, up, down, grades}
    this.view = [];
    this.version = -1;
    this.ack = -1;
    this.seq = 0;
    this.cfgKey = "";
    this.cfg = null;
    this.drag = null;
    this.press = null;
    this.send = null;
    this.liveToggle = false;
    this.lastEdit = null;
    this.retries = 0;
    this.resendTimer = 0;

    this.wrap = el("div", "rk");
    this.hint = el("p", "rk-sr");
    this.list = el("ol", "rk-list");
    this.live = el("div", "rk-sr", { role: "status", "aria-live": "polite", "aria-atomic": "true" });
    this.live.dataset.testid = "rk-live";
    this.wrap.append(this.hint, this.list, this.live);
    root.replaceChildren(this.wrap);

    this.onPointerDown = this.onPointerDown.bind(this);
    this.onPointerMove = this.onPointerMove.bind(this);
    this.onPointerUp = this.onPointerUp.bind(this);
    this.onPointerCancel = this.onPointerCancel.bind(this);
    this.onKeyDown = this.onKeyDown.bind(this);
    this.onClick = this.onClick.bind(this);
    this.onDragKey = this.onDragKey.bind(this);
    this.onTouchMove = this.onTouchMove.bind(this);
    this.onContextMenu = this.onContextMenu.bind(this);
    this.list.addEventListener("pointerdown", this.onPointerDown);
    this.list.addEventListener("pointermove", this.onPointerMove);
    this.list.addEventListener("pointerup", this.onPointerUp);
    this.list.addEventListener("pointercancel", this.onPointerCancel);
    this.list.addEventListener("lostpointercapture", this.onPointerCancel);
    this.list.addEventListener("keydown", this.onKeyDown);
    this.list.addEventListener("click", this.onClick);
    // Not passive: once a row is picked up, the finger moves the row, not the page.
    this.list.addEventListener("touchmove", this.onTouchMove, { passive: false });
    this.list.addEventListener("contextmenu", this.onContextMenu);
  }

  destroy() {
    clearTimeout(this.resendTimer);
    this.cancelPress();
    this.cancelDrag();
    this.nodes.clear();
  }

  // ---------------------------------------------------------------- data in
  update(data) {
    const labels = data.labels && typeof data.labels === "object" ? data.labels : {};
    const cfg = {
      mode: data.mode === "grade" ? "grade" : "binary",
      max: Math.max(1, toInt(data.max) || 3),
      dir: data.dir === "ltr" || data.dir === "rtl" ? data.dir : null,
      lang: typeof data.lang === "string" && /^[a-z]{2,3}$/.test(data.lang) ? data.lang : null,
      editable: data.editable !== false,
      cover: typeof data.cover === "string" ? data.cover : "",
      labels: Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)])),
    };
    const cfgKey = JSON.stringify(cfg);
    let force = false;
    if (cfgKey !== this.cfgKey) {
      this.cfgKey = cfgKey;
      this.cfg = cfg;
      this.applyConfig();
      force = true;
    }

    const version = toInt(data.v);
    const ack = toInt(data.ack);
    const items = normaliseItems(data.items);
    // A late call with older data (Streamlit may finish an outdated module
    // call after a newer one): ignore it.
    if (version < this.version || (version === this.version && ack < this.ack)) {
      if (force) this.render(this.view);
      return;
    }
    if (version > this.version) {
      // Python changed the list itself: it wins over any unacknowledged edit.
      this.version = version;
      this.ack = ack;
      this.seq = Math.max(this.seq, ack);
      this.render(items);
      return;
    }
    this.ack = ack;
    this.seq = Math.max(this.seq, ack);
    if (this.ack >= this.seq) {
      // Every local edit is acknowledged: Python's items are what we show.
      if (force || !sameItems(this.view, items)) this.render(items);
    } else if (force) {
      this.render(this.view);
    }
  }

  applyConfig() {
    const { labels, dir, lang } = this.cfg;
    if (dir) this.wrap.setAttribute("dir", dir);
    else this.wrap.removeAttribute("dir");
    // The labels' language, for screen readers (the shadow root is its own island).
    if (lang) this.wrap.setAttribute("lang", lang);
    else this.wrap.removeAttribute("lang");
    this.wrap.dataset.mode = this.cfg.mode;
    this.wrap.style.setProperty("--rk-max", String(this.cfg.max));
    if (labels.list) this.list.setAttribute("aria-label", labels.list);
    else this.list.removeAttribute("aria-label");
    this.hint.id = `rk-hint-${Math.random().toString(36).slice(2)}`;
    this.hint.textContent = labels.keyboard_hint || "";
    // Rebuild every row with the new labels / mode.
    for (const node of this.nodes.values()) node.li.remove();
    this.nodes.clear();
  }

  label(name) {
    return this.cfg.labels[name] || "";
  }

  // ---------------------------------------------------------------- render
  buildNode(id) {
    const li = el("li", "rk-item", { tabindex: "0" });
    li.dataset.id = id;
    if (this.hint.textContent) li.setAttribute("aria-describedby", this.hint.id);

    const handle = el("div", "rk-handle", { title: this.label("drag_handle") });
    handle.dataset.role = "handle";
    const grip = el("span", "rk-grip", { "aria-hidden": "true" });
    const rankWord = el("span", "rk-sr");
    rankWord.textContent = `${this.label("rank")} `;
    const num = el("bdi", "rk-num", { dir: "ltr" });
    handle.append(grip, rankWord, num);

    const main = el("div", "rk-main");
    // Isolated; "auto" resolves to LTR for any id that starts with a Latin letter or
    // has no letters (d7, doc-12, 42), and keeps an id typed in Arabic readable.
    const idEl = el("bdi", "rk-id", { dir: "auto" });
    idEl.textContent = id;
    const title = el("bdi", "rk-title", { dir: "auto" });
    main.append(idEl, title);

    const rel = el("div", "rk-rel");
    const node = { li, num, idEl, title, rel, grades: [], toggle: null, badge: null };
    if (!this.cfg.editable) {
      node.badge = el("span", "rk-badge");
      rel.append(node.badge);
    } else if (this.cfg.mode === "binary") {
      const btn = el("button", "rk-toggle", { type: "button", "aria-pressed": "false" });
      btn.dataset.role = "toggle";
      node.toggleIcon = el("span", "rk-toggle-icon");
      node.toggleText = el("span", "rk-toggle-text");
      btn.append(node.toggleIcon, node.toggleText);
      node.toggle = btn;
      rel.append(btn);
    } else {
      const group = el("div", "rk-grades", { role: "radiogroup", dir: "ltr" });
      for (let g = 0; g <= this.cfg.max; g++) {
        const b = el("button", "rk-grade", { type: "button", role: "radio", "aria-checked": "false" });
        b.dataset.role = "grade";
        b.dataset.grade = String(g);
        b.textContent = String(g);
        node.grades.push(b);
        group.append(b);
      }
      node.gradeGroup = group;
      rel.append(group);
    }

    const moves = el("div", "rk-moves");
    const up = el("button", "rk-move rk-up", { type: "button" });
    up.dataset.role = "up";
    up.append(icon("up"));
    const down = el("button", "rk-move rk-down", { type: "button" });
    down.dataset.role = "down";
    down.append(icon("down"));
    moves.append(up, down);
    node.up = up;
    node.down = down;

    li.append(handle, main, rel, moves);
    return node;
  }

  paintRel(node, item) {
    const { mode, max } = this.cfg;
    const id = item.id;
    if (mode === "binary") {
      const on = item.rel >= 1;
      node.li.classList.toggle("rk-is-rel", on);
      node.li.style.removeProperty("--rk-g");
      const text = on ? this.label("relevant") : this.label("not_relevant");
      if (node.toggle) {
        // One label ("relevant: d7"); aria-pressed alone says whether it is. A label that also
        // changed read "not relevant: d7, not pressed" (a double negative), and the visible
        // words stay part of the name (WCAG 2.5.3).
        const name = this.label("relevant");
        node.toggle.setAttribute("aria-pressed", on ? "true" : "false");
        node.toggle.setAttribute("aria-label", `${name}: ${id}`);
        node.toggleIcon.replaceChildren(icon(on ? "check" : "cross"));
        node.toggleText.textContent = name;
      } else {
        node.badge.replaceChildren(icon(on ? "check" : "cross"), document.createTextNode(text));
        node.badge.classList.toggle("rk-on", on);
      }
    } else {
      const g = Math.min(Math.max(item.rel, 0), max);
      node.li.classList.toggle("rk-is-rel", g > 0);
      node.li.style.setProperty("--rk-g", String(g / max));
      if (node.gradeGroup) {
        node.gradeGroup.setAttribute("aria-label", `${this.label("grade")}: ${id}`);
        for (const b of node.grades) {
          const on = Number(b.dataset.grade) === g;
          b.setAttribute("aria-checked", on ? "true" : "false");
          b.tabIndex = on ? 0 : -1;
        }
      } else {
        const bdi = el("bdi", "", { dir: "ltr" });
        bdi.textContent = `${g}/${max}`;
        node.badge.replaceChildren(document.createTextNode(`${this.label("grade")} `), bdi);
        node.badge.classList.toggle("rk-on", g > 0);
      }
    }
  }

  paintRanks() {
    const n = this.view.length;
    this.view.forEach((item, i) => {
      const node = this.nodes.get(item.id);
      if (!node) return;
      const rank = String(i + 1);
      if (node.num.textContent !== rank) node.num.textContent = rank;
      node.li.dataset.rank = rank;
      node.up.disabled = i === 0;
      node.down.disabled = i === n - 1;
      node.up.setAttribute("aria-label", `${this.label("move_up")}: ${item.id}`);
      node.down.setAttribute("aria-label", `${this.label("move_down")}: ${item.id}`);
      node.up.title = this.label("move_up");
      node.down.title = this.label("move_down");
      const relText =
        this.cfg.mode === "binary"
          ? item.rel >= 1
            ? this.label("relevant")
            : this.label("not_relevant")
          : `${this.label("grade")} ${Math.min(Math.max(item.rel, 0), this.cfg.max)}`;
      const titlePart = item.title ? ` ${item.title}` : "";
      node.li.setAttribute("aria-label", `${this.label("rank")} ${rank}: ${item.id}${titlePart}, ${relText}`);
    });
  }

  focusedInList() {
    const active = this.root.getRootNode().activeElement;
    if (!active || !this.list.contains(active)) return null;
    const li = active.closest(".rk-item");
    return li ? { id: li.dataset.id, el: active } : null;
  }

  render(items) {
    this.cancelDrag();
    const focus = this.focusedInList();
    const seen = new Set();
    const view = [];
    for (const item of items) {
      if (seen.has(item.id)) continue; // Python refuses duplicates; be safe anyway
      seen.add(item.id);
      view.push(item);
    }
    this.view = view;
    for (const [id, node] of this.nodes) {
      if (!seen.has(id)) {
        node.li.remove();
        this.nodes.delete(id);
      }
    }
    for (const item of view) {
      let node = this.nodes.get(item.id);
      if (!node) {
        node = this.buildNode(item.id);
        this.nodes.set(item.id, node);
      }
      if (node.title.textContent !== item.title) node.title.textContent = item.title;
      node.title.hidden = !item.title;
      this.paintRel(node, item);
    }
    this.placeNodes(focus ? focus.id : null);
    this.paintRanks();
    if (focus && !focus.el.isConnected) {
      const node = this.nodes.get(focus.id);
      if (node) node.li.focus({ preventScroll: true });
    } else if (focus && this.root.getRootNode().activeElement !== focus.el) {
      focus.el.focus({ preventScroll: true });
    }
  }

  // Put the <li>s in view order.  The focused row is never moved (moving a
  // focused node blurs it); its neighbours are moved around it instead.
  placeNodes(pivotId) {
    const order = this.view.map((it) => this.nodes.get(it.id).li);
    const kids = this.list.children;
    let inPlace = kids.length === order.length;
    for (let i = 0; inPlace && i < order.length; i++) inPlace = kids[i] === order[i];
    if (inPlace) return;
    const k = pivotId == null ? -1 : this.view.findIndex((it) => it.id === pivotId);
    if (k < 0) {
      order.forEach((li, i) => {
        if (this.list.children[i] !== li) this.list.insertBefore(li, this.list.children[i] || null);
      });
      return;
    }
    const pivot = order[k];
    if (pivot.parentNode !== this.list) this.list.appendChild(pivot);
    for (let i = 0; i < k; i++) this.list.insertBefore(order[i], pivot);
    for (let i = k + 1; i < order.length; i++) this.list.appendChild(order[i]);
  }

  // ---------------------------------------------------------------- edits out
  emit() {
    if (typeof this.send !== "function") return;
    this.seq += 1;
    this.lastEdit = {
      base: this.version,
      seq: this.seq,
      items: this.view.map((it) => [it.id, it.rel]),
    };
    this.retries = 0;
    this.send("edit", this.lastEdit);
    this.armResend();
  }

  // If an edit is not acknowledged in time (a dropped connection loses
  // triggers), send it again; Python ignores a copy it has already applied.
  armResend() {
    clearTimeout(this.resendTimer);
    this.resendTimer = setTimeout(() => {
      const e = this.lastEdit;
      if (!e || this.ack >= e.seq || e.base !== this.version || this.retries >= RESEND_TRIES) return;
      this.retries += 1;
      this.send("edit", e);
      this.armResend();
    }, RESEND_AFTER_MS);
  }

  announce(text) {
    // Alternate a trailing no-break space so that a repeated message is
    // still a change for the live region.
    this.liveToggle = !this.liveToggle;
    this.live.textContent = text + (this.liveToggle ? "\u00a0" : "");
  }

  moveItem(from, to) {
    const n = this.view.length;
    to = Math.max(0, Math.min(n - 1, to));
    if (from === to || from < 0 || from >= n) return false;
    const focus = this.focusedInList();
    const [item] = this.view.splice(from, 1);
    this.view.splice(to, 0, item);
    this.placeNodes(focus ? focus.id : null);
    this.paintRanks();
    if (focus) {
      const node = this.nodes.get(focus.id);
      let target = focus.el;
      // A move button that just became disabled hands focus to its twin.
      if (target.disabled) target = target === node.up ? node.down : node.up;
      if (target.disabled) target = node.li;
      if (this.root.getRootNode().activeElement !== target) target.focus({ preventScroll: true });
    }
    const moved = this.nodes.get(item.id);
    if (focus && focus.id === item.id && moved.li.scrollIntoView) this.reveal(moved.li);
    this.announce(fill(this.label("moved_to"), { rank: to + 1, id: item.id }));
    this.emit();
    return true;
  }

  setRel(id, rel) {
    const item = this.view.find((it) => it.id === id);
    if (!item || item.rel === rel) return;
    item.rel = rel;
    const node = this.nodes.get(id);
    this.paintRel(node, item);
    this.paintRanks();
    this.emit();
  }

  indexOf(id) {
    return this.view.findIndex((it) => it.id === id);
  }

  onClick(event) {
    const target = event.target instanceof Element ? event.target.closest("[data-role]") : null;
    if (!target || !this.list.contains(target)) return;
    const li = target.closest(".rk-item");
    if (!li) return;
    const id = li.dataset.id;
    const role = target.dataset.role;
    if (role === "up") this.moveItem(this.indexOf(id), this.indexOf(id) - 1);
    else if (role === "down") this.moveItem(this.indexOf(id), this.indexOf(id) + 1);
    else if (role === "toggle") {
      const item = this.view[this.indexOf(id)];
      if (item) this.setRel(id, item.rel >= 1 ? 0 : 1);
    } else if (role === "grade") {
      this.setRel(id, Number(target.dataset.grade));
    }
  }

  onKeyDown(event) {
    const target = event.target instanceof Element ? event.target : null;
    const li = target ? target.closest(".rk-item") : null;
    if (!li || this.drag) return;
    const id = li.dataset.id;
    const i = this.indexOf(id);
    const key = event.key;
    const plain = !event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey;
    const altOnly = event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey;

    if (altOnly && (key === "ArrowUp" || key === "ArrowDown" || key === "Home" || key === "End")) {
      event.preventDefault();
      const to = key === "ArrowUp" ? i - 1 : key === "ArrowDown" ? i + 1 : key === "Home" ? 0 : this.view.length - 1;
      this.moveItem(i, to);
      return;
    }
    if (target && target.dataset.role === "grade" && plain) {
      // Radio group: arrows change the grade (visual order is always 0 -> max, left to right).
      const g = Number(target.dataset.grade);
      let next = null;
      if (key === "ArrowRight" || key === "ArrowDown") next = Math.min(this.cfg.max, g + 1);
      else if (key === "ArrowLeft" || key === "ArrowUp") next = Math.max(0, g - 1);
      else if (key === "Home") next = 0;
      else if (key === "End") next = this.cfg.max;
      if (next !== null) {
        event.preventDefault();
        this.setRel(id, next);
        this.nodes.get(id).grades[next].focus();
      }
      return;
    }
    if (target === li && plain && (key === "ArrowUp" || key === "ArrowDown")) {
      // Move focus between rows.
      event.preventDefault();
      const j = key === "ArrowUp" ? i - 1 : i + 1;
      if (j >= 0 && j < this.view.length) this.nodes.get(this.view[j].id).li.focus();
    }
  }

  // ---------------------------------------------------------------- dragging
  onPointerDown(event) {
    if (this.drag || this.press || event.button !== 0 || !event.isPrimary) return;
    const target = event.target instanceof Element ? event.target : null;
    const li = target ? target.closest(".rk-item") : null;
    if (!li) return;
    const onHandle = !!target.closest('[data-role="handle"]');
    const onControl = !!target.closest("button, a, input, select, textarea");
    if (onControl && !onHandle) return; // its buttons keep their own click
    if (!onHandle && event.pointerType !== "mouse") {
      // A finger or pen on the row's body: a short press picks the row up, while a
      // quick swipe still scrolls the page. (On the handle it drags at once.)
      this.armPress(event, li, target);
      return;
    }
    // A mouse grabs the handle at once, the row's body once it moves a few pixels.
    event.preventDefault();
    this.beginDrag(event.pointerId, li, target, event.clientY, onHandle);
  }

  beginDrag(pointerId, li, captureEl, clientY, active) {
    const from = this.indexOf(li.dataset.id);
    if (from < 0) return;
    const lis = this.view.map((it) => this.nodes.get(it.id).li);
    const rects = lis.map((x) => ({ top: x.offsetTop, height: x.offsetHeight }));
    const scroller = scrollParent(this.root);
    this.drag = {
      id: li.dataset.id,
      li,
      from,
      to: from,
      pointerId,
      captureEl,
      startY: clientY,
      lastY: clientY,
      scroller,
      startScroll: scroller.scrollTop,
      lis,
      rects,
      active,
      raf: 0,
    };
    try {
      captureEl.setPointerCapture(pointerId);
    } catch (_err) {
      /* capture is best effort */
    }
    if (active) this.startDragVisuals();
  }

  armPress(event, li, target) {
    const press = { pointerId: event.pointerId, li, target, x: event.clientX, y: event.clientY };
    press.timer = setTimeout(() => {
      if (this.press !== press) return;
      this.cancelPress();
      if (li.isConnected && !this.drag) this.beginDrag(press.pointerId, li, target, press.y, true);
    }, LONG_PRESS_MS);
    this.press = press;
    li.classList.add("rk-pressing");
  }

  cancelPress() {
    const p = this.press;
    if (!p) return;
    this.press = null;
    clearTimeout(p.timer);
    p.li.classList.remove("rk-pressing");
  }

  onTouchMove(event) {
    if (this.drag && this.drag.active && event.cancelable) event.preventDefault();
  }

  onContextMenu(event) {
    // A long press would open the browser's menu (and select text) under the finger.
    if (this.press || this.drag) event.preventDefault();
  }

  // The bottom of the sticky element over the page's top (the lesson's numbers), in
  // viewport pixels; 0 when there is none or it is not over the top of the screen.
  coverBottom() {
    const selector = this.cfg && this.cfg.cover;
    if (!selector) return 0;
    let node = null;
    try {
      node = document.querySelector(selector);
    } catch (_err) {
      return 0;
    }
    if (!node) return 0;
    const r = node.getBoundingClientRect();
    return r.height > 0 && r.top < window.innerHeight / 2 ? r.bottom : 0;
  }

  // Scroll a row into view, clear of the sticky numbers.
  reveal(li) {
    li.scrollIntoView({ block: "nearest" });
    const cover = this.coverBottom();
    const top = li.getBoundingClientRect().top;
    if (cover && top < cover) scrollParent(this.root).scrollBy(0, top - cover - 8);
  }

  startDragVisuals() {
    const d = this.drag;
    d.active = true;
    window.addEventListener("keydown", this.onDragKey, true);
    this.wrap.classList.add("rk-dragging");
    d.li.classList.add("rk-drag");
  }

  dragOffset() {
    const d = this.drag;
    return d.lastY - d.startY + (d.scroller.scrollTop - d.startScroll);
  }

  layoutDrag() {
    const d = this.drag;
    const dy = this.dragOffset();
    const { rects, from } = d;
    const center = rects[from].top + rects[from].height / 2 + dy;
    let to = 0;
    for (let j = 0; j < rects.length; j++) {
      if (j !== from && rects[j].top + rects[j].height / 2 < center) to++;
    }
    d.to = to;
    const next = rects[from + 1] || null;
    const prev = rects[from - 1] || null;
    const gap = next
      ? next.top - (rects[from].top + rects[from].height)
      : prev
        ? rects[from].top - (prev.top + prev.height)
        : 0;
    const shift = rects[from].height + gap;
    d.li.style.transform = `translateY(${dy}px)`;
    d.lis.forEach((x, j) => {
      let rank = j;
      let s = 0;
      if (j === from) rank = to;
      else if (from < to && j > from && j <= to) {
        s = -shift;
        rank = j - 1;
      } else if (to < from && j >= to && j < from) {
        s = shift;
        rank = j + 1;
      }
      if (j !== from) x.style.transform = s ? `translateY(${s}px)` : "";
      // The badges show the ranks the drop would give, as the row moves.
      const num = this.nodes.get(x.dataset.id).num;
      if (num.textContent !== String(rank + 1)) num.textContent = String(rank + 1);
    });
  }

  onPointerMove(event) {
    const p = this.press;
    if (p && event.pointerId === p.pointerId) {
      if (Math.hypot(event.clientX - p.x, event.clientY - p.y) > PRESS_SLOP_PX) this.cancelPress();
      return;
    }
    const d = this.drag;
    if (!d || event.pointerId !== d.pointerId) return;
    d.lastY = event.clientY;
    if (!d.active) {
      if (Math.abs(d.lastY - d.startY) < DRAG_THRESHOLD_PX) return;
      this.startDragVisuals();
    }
    event.preventDefault();
    this.layoutDrag();
    this.autoScroll();
  }

  autoScroll() {
    const d = this.drag;
    if (!d || d.raf) return;
    const step = () => {
      d.raf = 0;
      if (this.drag !== d || !d.active) return;
      const s = d.scroller;
      const isRoot = s === document.scrollingElement || s === document.documentElement;
      const top = Math.max(isRoot ? 0 : Math.max(0, s.getBoundingClientRect().top), this.coverBottom());
      const bottom = isRoot ? window.innerHeight : Math.min(window.innerHeight, s.getBoundingClientRect().bottom);
      let v = 0;
      if (d.lastY < top + AUTOSCROLL_EDGE_PX) v = -Math.ceil((top + AUTOSCROLL_EDGE_PX - d.lastY) / 4);
      else if (d.lastY > bottom - AUTOSCROLL_EDGE_PX) v = Math.ceil((d.lastY - (bottom - AUTOSCROLL_EDGE_PX)) / 4);
      if (!v) return;
      const before = s.scrollTop;
      s.scrollTop = before + v;
      if (s.scrollTop !== before) {
        this.layoutDrag();
        d.raf = requestAnimationFrame(step);
      }
    };
    d.raf = requestAnimationFrame(step);
  }

  clearDragVisuals(d) {
    if (d.raf) cancelAnimationFrame(d.raf);
    window.removeEventListener("keydown", this.onDragKey, true);
    this.wrap.classList.add("rk-snap");
    for (const x of d.lis) x.style.transform = "";
    d.li.classList.remove("rk-drag");
    this.wrap.classList.remove("rk-dragging");
    void this.list.offsetHeight; // apply without transition
    this.wrap.classList.remove("rk-snap");
    this.paintRanks();
  }

  onDragKey(event) {
    if (event.key === "Escape" && this.drag) {
      event.preventDefault();
      event.stopPropagation();
      this.cancelDrag();
    }
  }

  onPointerUp(event) {
    if (this.press && event.pointerId === this.press.pointerId) this.cancelPress();
    const d = this.drag;
    if (!d || event.pointerId !== d.pointerId) return;
    this.drag = null;
    try {
      d.captureEl.releasePointerCapture(d.pointerId);
    } catch (_err) {
      /* already released */
    }
    if (!d.active) return;
    d.lastY = event.clientY;
    this.clearDragVisuals(d);
    const from = this.indexOf(d.id);
    if (from >= 0 && d.to !== from) this.moveItem(from, d.to);
  }

  onPointerCancel(event) {
    if (this.press && (!event || event.pointerId === this.press.pointerId)) this.cancelPress();
    const d = this.drag;
    if (!d || (event && event.pointerId !== d.pointerId)) return;
    this.cancelDrag();
  }

  cancelDrag() {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    try {
      d.captureEl.releasePointerCapture(d.pointerId);
    } catch (_err) {
      /* already released */
    }
    this.clearDragVisuals(d);
  }
}

export default function mountRankingEditor(component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector(".rk-root");
  if (!root) return undefined;
  let inst = INSTANCES.get(root);
  if (!inst) {
    inst = new RankingEditor(root);
    INSTANCES.set(root, inst);
  }
  inst.send = setTriggerValue;
  inst.update(data || {});
  // Streamlit calls this on unmount, and also right away for a superseded
  // call; only tear down once the element has really left the page.
  return () => {
    setTimeout(() => {
      if (!root.isConnected && INSTANCES.get(root) === inst) {
        inst.destroy();
        INSTANCES.delete(root);
      }
    }, 0);
  };
}
