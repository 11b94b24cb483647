// The file picker: the project as a tree of folders, a checkbox per file labelled with its path, and a filter.

import { el } from "./dom.js";

export class Picker {
  constructor(tree, filter, summary, onChange) {
    this.tree = tree;
    this.filter = filter;
    this.summary = summary;
    this.onChange = onChange;
    this.picked = new Set();
    this.files = [];
    this.boxes = new Map();
    filter.addEventListener("input", () => this.applyFilter());
  }

  async load(refresh = false) {
    try {
      const response = await fetch(`api/files${refresh ? "?refresh=1" : ""}`);
      const data = await response.json();
      this.files = data.files;
      this.truncated = data.truncated;
    } catch (error) {
      this.tree.replaceChildren(el("p", { class: "empty", text: `the files cannot be listed (${error.message})` }));
      return;
    }
    this.render();
  }

  pick(paths) {
    this.picked = new Set(paths);
    for (const [path, box] of this.boxes) box.checked = this.picked.has(path);
    this.count();
  }

  render() {
    const root = { folders: new Map(), files: [] };
    for (const file of this.files) {
      const parts = file.path.split("/");
      let node = root;
      for (const part of parts.slice(0, -1)) {
        if (!node.folders.has(part)) node.folders.set(part, { folders: new Map(), files: [] });
        node = node.folders.get(part);
      }
      node.files.push(file);
    }
    this.boxes = new Map();
    const list = this.branch(root, "");
    const cut = el("p", { class: "empty", text: "Only the first files are listed: the project has more." });
    this.tree.replaceChildren(...(this.truncated ? [list, cut] : [list]));
    this.applyFilter();
    this.count();
  }

  branch(node, prefix) {
    const items = [];
    for (const [name, folder] of [...node.folders].sort(([a], [b]) => a.localeCompare(b))) {
      const path = `${prefix}${name}/`;
      items.push(el("li", { class: "folder", "data-path": path },
        el("details", { open: true }, el("summary", { text: name + "/" }), this.branch(folder, path))));
    }
    for (const file of node.files) {
      const why = file.ignored ? "ignored (.gitignore)" : file.binary ? "binary" : "";
      const box = el("input", { type: "checkbox", value: file.path, disabled: Boolean(why),
        "aria-describedby": why ? `why-${file.path}` : null,
        onchange: (event) => { this.toggle(file.path, event.target.checked); } });
      box.checked = this.picked.has(file.path);
      this.boxes.set(file.path, box);
      items.push(el("li", { class: `file${why ? " unavailable" : ""}`, "data-path": file.path },
        el("label", {}, box, el("span", { class: "name", text: file.path })),
        why ? el("span", { class: "why", id: `why-${file.path}`, text: why }) : null));
    }
    return el("ul", {}, items);
  }

  toggle(path, on) {
    if (on) this.picked.add(path);
    else this.picked.delete(path);
    this.count();
    this.onChange([...this.picked]);
  }

  count() {
    const n = this.picked.size;
    this.summary.textContent = n ? `${n} file${n === 1 ? "" : "s"} picked: ${[...this.picked].join(", ")}` : "No file picked.";
  }

  applyFilter() {
    const words = this.filter.value.trim().toLowerCase();
    for (const item of this.tree.querySelectorAll("li.file")) {
      item.hidden = Boolean(words) && !item.dataset.path.toLowerCase().includes(words);
    }
    for (const folder of [...this.tree.querySelectorAll("li.folder")].reverse()) {
      const visible = folder.querySelector("li.file:not([hidden])");
      folder.hidden = !visible;
      if (words && visible) folder.querySelector("details").open = true;
    }
  }
}
