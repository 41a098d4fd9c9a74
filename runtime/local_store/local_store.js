// Mizan local store: the browser's localStorage as a two-way channel to Python.
// Streamlit components v2 (no iframe), no dependencies, no network, draws nothing.
//
//   JS -> Python  trigger "loaded" = {status: "ok"|"empty"|"unavailable", text}
//                 once per mount (read BEFORE any write), and again whenever another
//                 tab of the same browser changes the value (the "storage" event).
//                 trigger "write_failed" = {rev}  when the browser refuses to store.
//   Python -> JS  data = {storage_key, rev, text, backup}
//                 text (a string) is written when rev is newer than the last write.
//                 The rev present when this element mounts is NOT written: Python's
//                 copy may predate what another tab stored; Python first merges what
//                 was read and sends a new rev if anything changed.
//                 backup: before overwriting an unreadable stored value, keep it under
//                 storage_key + ".unreadable".

const INSTANCES = new WeakMap();

function storage() {
  // Reading window.localStorage itself throws in some private modes / blocked cookies.
  const ls = window.localStorage;
  const probe = "__mizan_probe__";
  ls.setItem(probe, "1");
  ls.removeItem(probe);
  return ls;
}

class LocalStore {
  constructor(root, data) {
    this.root = root;
    this.key = String(data.storage_key || "mizan");
    this.written = Number.isInteger(data.rev) ? data.rev : -1;
    this.send = null;
    this.available = false;
    this.backedUp = false;
    this.onStorage = (event) => {
      if (event.storageArea === this.ls && event.key === this.key) {
        this.report(event.newValue);
      }
    };
  }

  report(text) {
    this.send("loaded", text == null ? { status: "empty", text: "" } : { status: "ok", text });
  }

  read() {
    let text = null;
    try {
      this.ls = storage();
      text = this.ls.getItem(this.key);
      this.available = true;
    } catch (_err) {
      this.available = false;
      this.send("loaded", { status: "unavailable", text: "" });
      return;
    }
    this.root.dataset.state = "read";
    window.addEventListener("storage", this.onStorage);
    this.report(text);
  }

  update(data) {
    if (!this.available || !Number.isInteger(data.rev) || data.rev <= this.written) return;
    if (typeof data.text !== "string") return;
    try {
      if (data.backup && !this.backedUp) {
        const old = this.ls.getItem(this.key);
        if (old != null) this.ls.setItem(this.key + ".unreadable", old);
        this.backedUp = true;
      }
      this.ls.setItem(this.key, data.text);
      this.written = data.rev;
      this.root.dataset.rev = String(data.rev);
    } catch (_err) {
      this.written = data.rev; // do not retry the same value on every rerun
      this.send("write_failed", { rev: data.rev });
    }
  }

  destroy() {
    window.removeEventListener("storage", this.onStorage);
  }
}

export default function mountLocalStore(component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector(".ls-root");
  if (!root) return undefined;
  const d = data || {};
  let inst = INSTANCES.get(root);
  if (!inst) {
    inst = new LocalStore(root, d);
    INSTANCES.set(root, inst);
    inst.send = setTriggerValue;
    inst.read();
  }
  inst.send = setTriggerValue;
  inst.update(d);
  return () => {
    setTimeout(() => {
      if (!root.isConnected && INSTANCES.get(root) === inst) {
        inst.destroy();
        INSTANCES.delete(root);
      }
    }, 0);
  };
}
