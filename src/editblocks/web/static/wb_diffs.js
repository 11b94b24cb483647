// What Apply would write, file by file: a list to move between files (accept or reject a whole file), then
// each file's diff, unified or side by side, with more context on request or the whole file.

import { el, jump } from "./dom.js";
import { split, unified } from "./diffs.js";

export const CONTEXT_STEP = 10;

export function fileList(files, actions) {
  if (!files.length) return [el("p", { class: "empty", text: "No file yet: the blocks' files show here." })];
  const locked = actions.locked();
  return [el("ul", {}, files.map((file) => el("li", {},
    el("a", { href: `#${file.id}`, text: file.path, onclick: (event) => { event.preventDefault(); jump(file.id); } }),
    el("span", { class: "count", text: file.hunks.length ? `${file.hunks.length} hunk${file.hunks.length > 1 ? "s" : ""}` : "unchanged" }),
    el("span", { class: "decide" },
      el("button", { type: "button", "aria-label": `Accept file ${file.path}`, disabled: locked, text: "Accept all",
        onclick: () => actions.decide(file.blocks, true) }),
      el("button", { type: "button", "aria-label": `Reject file ${file.path}`, disabled: locked, text: "Reject all",
        onclick: () => actions.decide(file.blocks, false) })))))];
}

// `wide` maps a file's id to the diff fetched with more context (or the whole file) for it.
export function fileDiffs(files, layout, wide, actions) {
  return files.filter((file) => file.hunks.length).map((file) => {
    const shown = wide.get(file.id);
    const hunks = shown ? shown.hunks : file.hunks;
    const whole = Boolean(shown && shown.context === null);
    const context = shown ? shown.context : 3;
    return el("section", { class: "file", id: file.id, "aria-label": `Diff of ${file.path}`, tabindex: "-1" },
      el("div", { class: "file-head" },
        el("h3", {}, file.path, file.created ? el("span", { class: "tag", text: "new file" }) : null,
          file.deleted ? el("span", { class: "tag del", text: "deleted" }) : null),
        el("span", { class: "file-tools" },
          el("button", { type: "button", "aria-label": `Expand context of ${file.path}`, disabled: whole,
            text: "Expand context", onclick: () => actions.widen(file, (context || 3) + CONTEXT_STEP) }),
          el("button", { type: "button", "aria-label": `Whole file ${file.path}`, "aria-pressed": String(whole),
            text: "Whole file", onclick: () => actions.widen(file, whole ? 3 : "all") }))),
      hunks.map((hunk) => el("div", { class: "hunk", id: hunk.id },
        el("div", { class: "hunk-head" }, el("span", { text: hunk.header }),
          hunk.blocks.map((n) => el("a", { href: `#b${n}`, text: `block ${n}`,
            onclick: (event) => { event.preventDefault(); jump(`b${n}`); } }))),
        layout === "split" ? split(hunk.rows) : unified(hunk.rows))));
  });
}
