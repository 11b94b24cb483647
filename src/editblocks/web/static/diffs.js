// Every changed file: a list to move between them, then each file's hunks, unified or side by side.

import { code, el, jump } from "./dom.js";
import { kindClass } from "./blocks.js";

export function renderFileList(view, actions) {
  if (!view.files.length) return [el("p", { class: "empty", text: "No files yet." })];
  const locked = view.applied || view.streaming;
  return [el("ul", {}, view.files.map((file) => {
    const numbers = file.blocks;
    return el("li", {},
      el("a", { href: `#${file.id}`, text: file.path,
        onclick: (event) => { event.preventDefault(); jump(file.id); } }),
      el("span", { class: "count", text: file.hunks.length ? `${file.hunks.length} hunk${file.hunks.length > 1 ? "s" : ""}` : "unchanged" }),
      el("span", { class: "decide" },
        el("button", { type: "button", "aria-label": `Accept file ${file.path}`, disabled: locked, text: "Accept all",
          onclick: () => actions.decide(numbers, true) }),
        el("button", { type: "button", "aria-label": `Reject file ${file.path}`, disabled: locked, text: "Reject all",
          onclick: () => actions.decide(numbers, false) })));
  }))];
}

export function renderFiles(view, layout) {
  return view.files.filter((file) => file.hunks.length).map((file) =>
    el("section", { class: "file", id: file.id, "aria-label": `Diff of ${file.path}` },
      el("h3", {}, file.path, file.created ? el("span", { class: "tag", text: "new file" }) : null),
      file.hunks.map((hunk) => el("div", { class: "hunk", id: hunk.id },
        el("div", { class: "hunk-head" }, el("span", { text: hunk.header }),
          hunk.blocks.map((n) => el("a", { href: `#b${n}`, text: `block ${n}`,
            onclick: (event) => { event.preventDefault(); jump(`b${n}`); } }))),
        layout === "split" ? split(hunk.rows) : unified(hunk.rows))),
    ));
}

function number(value) {
  return el("td", { class: "ln", text: value === null ? "" : String(value) });
}

export function unified(rows) {
  return el("table", { class: "diff unified" }, el("tbody", {}, rows.map(([kind, oldNo, newNo, segments]) =>
    el("tr", { class: kind === "\\" ? "note" : kindClass(kind) }, number(oldNo), number(newNo),
      el("td", { class: "code" }, code(segments))))));
}

export function split(rows) {
  const body = el("tbody");
  let index = 0;
  while (index < rows.length) {
    const [kind] = rows[index];
    if (kind === "-" || kind === "+") {
      const removed = [];
      const added = [];
      while (index < rows.length && rows[index][0] === "-") removed.push(rows[index++]);
      while (index < rows.length && rows[index][0] === "+") added.push(rows[index++]);
      for (let i = 0; i < Math.max(removed.length, added.length); i++) {
        body.append(el("tr", {}, side(removed[i], "del", 1), side(added[i], "add", 2)));
      }
      continue;
    }
    const row = rows[index++];
    body.append(el("tr", { class: kind === "\\" ? "note" : "ctx" }, side(row, "", 1), side(row, "", 2)));
  }
  return el("table", { class: "diff split" }, body);
}

function side(row, css, which) {
  if (!row) return [el("td", { class: "ln empty" }), el("td", { class: "code empty" })];
  return [el("td", { class: `ln ${css}`, text: row[which] === null ? "" : String(row[which]) }),
    el("td", { class: `code ${css}` }, code(row[3]))];
}
