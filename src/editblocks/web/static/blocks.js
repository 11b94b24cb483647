// The answer as written: prose, and every block in place with its badge, reason and accept/reject buttons.

import { code, el, jump } from "./dom.js";

const SIGN = { " ": " ", "-": "−", "+": "+" };

export function renderAnswer(view, actions) {
  const blocks = new Map(view.blocks.map((block) => [block.n, block]));
  const out = [];
  for (const piece of view.answer) {
    if (piece.t === "text") out.push(el("div", { class: "prose", text: piece.text }));
    else if (piece.t === "block") out.push(blockCard(blocks.get(piece.n), view, actions));
    else out.push(partialCard(piece));
  }
  if (!view.answer.length) {
    out.push(el("p", { class: "empty", text: view.streaming ? "Waiting for the answer…" : "No answer yet." }));
  }
  return out;
}

function rows(list) {
  return el("div", { class: "code" }, list.map(([kind, segments]) =>
    el("div", { class: `row k${kindClass(kind)}` }, el("span", { class: "sign", "aria-hidden": "true", text: SIGN[kind] }),
      code(segments))));
}

export function kindClass(kind) {
  return kind === "-" ? "del" : kind === "+" ? "add" : "ctx";
}

function blockCard(block, view, actions) {
  const name = `block ${block.n}`;
  const file = view.files.find((f) => f.blocks.includes(block.n));
  const target = block.hunk || (file && file.hunks.length ? file.id : null);
  const badge = el("button", {
    type: "button", class: `badge ${block.status}`, "aria-label": `Block ${block.n}: ${block.status}`,
    title: block.reason || block.status, text: block.status,
    onclick: () => jump(block.closest ? `b${block.n}-closest` : target || `b${block.n}`),
  });
  const locked = view.applied || view.streaming;
  const decide = el("span", { class: "decide" },
    el("button", { type: "button", "aria-label": `Accept ${name}`, "aria-pressed": String(block.accepted),
      disabled: locked, text: "Accept", onclick: () => actions.decide([block.n], true) }),
    el("button", { type: "button", "aria-label": `Reject ${name}`, "aria-pressed": String(!block.accepted),
      disabled: locked, text: "Reject", onclick: () => actions.decide([block.n], false) }));
  const path = target
    ? el("a", { class: "path", href: `#${target}`, text: block.path || "(no path)", onclick: (event) => {
      event.preventDefault(); jump(target);
    } })
    : el("span", { class: "path", text: block.path || "(no path)" });
  return el("article", { class: `block s-${block.status}`, id: `b${block.n}`, "aria-label": `Block ${block.n}` },
    el("header", {}, el("span", { class: "num", text: `Block ${block.n}` }), path,
      el("span", { class: "line", text: `reply line ${block.line}${block.kind === "create" ? " · new file" : ""}` }),
      badge, decide),
    block.reason ? el("p", { class: "reason", text: block.reason }) : null,
    rows(block.rows),
    block.closest ? closest(block) : null);
}

function closest(block) {
  const near = block.closest;
  const file = near.lines.length
    ? el("div", { class: "code numbered" }, near.lines.map(([number, segments, inside]) =>
      el("div", { class: `row${inside ? " near" : ""}` }, el("span", { class: "ln", text: String(number) }),
        code(segments))))
    : el("pre", { class: "hint", text: near.hint || "no similar lines in the file" });
  return el("div", { class: "closest", id: `b${block.n}-closest`, role: "group",
    "aria-label": `Block ${block.n}: its SEARCH text beside the closest lines of the file` },
  el("div", {}, el("h4", { text: "SEARCH (the block)" }),
    el("div", { class: "code" }, near.search.map((segments) => el("div", { class: "row" }, code(segments))))),
  el("div", {}, el("h4", { text: `${block.path}: closest lines` }), file));
}

function partialCard(piece) {
  return el("article", { class: "block s-streaming", "aria-label": `Block in progress (reply line ${piece.line})` },
    el("header", {}, el("span", { class: "num", text: "Block" }), el("span", { class: "path", text: piece.path }),
      el("span", { class: "badge streaming", role: "status", text: "in progress" })),
    rows(piece.rows));
}
