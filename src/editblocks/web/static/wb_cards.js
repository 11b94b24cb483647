// The conversation: each round a pair of cards (what was sent, the answer), the answer's blocks in place.

import { code, el, jump } from "./dom.js";

const SIGN = { " ": " ", "-": "−", "+": "+" };
const MARK = { ready: "✓", applied: "✓", held: "=", failed: "✗", skipped: "–", rejected: "⊘" };
const STATE_TEXT = {
  asking: "asking…", streaming: "answering…", done: "answer complete", stopped: "stopped",
  broken: "broke off", error: "no answer",
};

// A round's element: the user's card, then the answer's card whose pieces stay in place as the round changes.
export function turnShell(n) {
  return el("li", { class: "turn", id: `round-${n}` },
    el("div", { class: "user-slot" }),
    el("article", { class: "card assistant", "aria-label": `Round ${n}: the model's answer` },
      el("div", { class: "answer-head" }), el("div", { class: "pieces" })));
}

// Fill a round's element with what the round is now (its pieces are the caller's).
export function fillTurn(node, turn, actions) {
  const who = turn.kind === "feedback" ? "feedback sent to the model" : "you asked";
  node.querySelector(".user-slot").replaceChildren(el("article", { class: `card user k-${turn.kind}`, "aria-label": `Round ${turn.n}: ${who}` },
    el("header", {}, el("span", { class: "who", text: turn.kind === "feedback" ? "Feedback (sent automatically)" : "You" }),
      el("span", { class: "round", text: `round ${turn.n}` }),
      turn.files.length ? el("span", { class: "files", text: `files: ${turn.files.join(", ")}` }) : null),
    turn.kind === "feedback"
      ? el("details", {}, el("summary", { text: "What the model was told about the failed blocks" }),
        el("pre", { class: "text", text: turn.text }))
      : el("p", { class: "text", text: turn.text })));
  const streaming = turn.state === "asking" || turn.state === "streaming";
  const bad = turn.state === "error" || turn.state === "broken";
  const answer = node.querySelector(".assistant");
  answer.className = `card assistant st-${turn.state}`;
  answer.setAttribute("aria-busy", String(streaming));
  const head = [el("header", {}, el("span", { class: "who", text: "Model" }),
    el("span", { class: `state st-${turn.state}`, text: STATE_TEXT[turn.state] || turn.state }),
    streaming ? el("button", { type: "button", class: "stop", text: "Stop", onclick: () => actions.post("api/stop") }) : null)];
  if (turn.note) head.push(el("p", { class: `note${bad ? " bad" : ""}`, role: bad ? "alert" : "status", text: turn.note }));
  answer.querySelector(".answer-head").replaceChildren(...head);
}

export function pieceNode(piece, view, actions) {
  if (piece.t === "prose") {
    const node = el("div", { class: "prose md", id: piece.id });
    node.innerHTML = piece.html;  // markdown-it-py's output with raw HTML turned off: no markup from the model
    return node;
  }
  if (piece.t === "partial") return partialCard(piece);
  return blockCard(piece, view, actions);
}

function rows(list, block, actions) {
  const shown = new Set();
  return el("div", { class: "code" }, list.map(([kind, segments, change]) => {
    const row = el("div", { class: `row k${kindClass(kind)}${change && block && block.refused.includes(change) ? " refused" : ""}` },
      el("span", { class: "sign", "aria-hidden": "true", text: SIGN[kind] }), code(segments));
    if (!block || block.changes < 2 || !change || shown.has(change)) return row;
    shown.add(change);
    return [changeBar(block, change, actions), row];
  }));
}

function changeBar(block, change, actions) {
  const kept = block.accepted && !block.refused.includes(change);
  const locked = block.applied || actions.locked();
  return el("div", { class: "change-bar", role: "group", "aria-label": `Change ${change} of block ${block.n}` },
    el("span", { text: `change ${change} of ${block.changes}: ${kept ? "kept" : "refused"}` }),
    el("button", { type: "button", "aria-label": `Keep change ${change} of block ${block.n}`, "aria-pressed": String(kept),
      disabled: locked, text: "Keep", onclick: () => actions.post("api/change", { block: block.n, change, accept: true }) }),
    el("button", { type: "button", "aria-label": `Refuse change ${change} of block ${block.n}`, "aria-pressed": String(!kept),
      disabled: locked, text: "Refuse", onclick: () => actions.post("api/change", { block: block.n, change, accept: false }) }));
}

export function kindClass(kind) {
  return kind === "-" ? "del" : kind === "+" ? "add" : "ctx";
}

function badgeText(block) {
  const mark = MARK[block.status] || "";
  if (block.status === "ready" && block.rung) return `${mark} ready · ${block.rung}`;
  return `${mark} ${block.status}`;
}

function blockCard(block, view, actions) {
  const name = `block ${block.n}`;
  const locked = block.applied || actions.locked();
  const file = view.files.find((f) => f.blocks.includes(block.n));
  const target = file && file.hunks.length ? file.id : null;
  const badge = el("button", {
    type: "button", class: `badge ${block.status}`, "aria-label": `Block ${block.n}: ${block.status}`,
    title: block.reason || block.status, text: badgeText(block),
    onclick: () => jump(block.excerpt ? `b${block.n}-excerpt` : target || `b${block.n}`),
  });
  const decide = el("span", { class: "decide" },
    el("button", { type: "button", "aria-label": `Accept ${name}`, "aria-pressed": String(block.accepted),
      disabled: locked, text: "Accept", title: block.accept_means, onclick: () => actions.decide([block.n], true) }),
    el("button", { type: "button", "aria-label": `Reject ${name}`, "aria-pressed": String(!block.accepted),
      disabled: locked, text: "Reject", title: block.accept_means, onclick: () => actions.decide([block.n], false) }));
  const path = target
    ? el("a", { class: "path", href: `#${target}`, text: block.path || "(no path)",
      onclick: (event) => { event.preventDefault(); jump(target); } })
    : el("span", { class: "path", text: block.path || "(no path)" });
  const failing = block.status === "failed" || block.status === "skipped" || (block.status === "rejected" && block.code);
  return el("article", { class: `block s-${block.status}`, id: `b${block.n}`, "aria-label": `Block ${block.n}`, tabindex: "-1",
    "data-n": String(block.n) },
  el("header", {}, el("span", { class: "num", text: `Block ${block.n}` }), path,
    el("span", { class: "line", text: `reply line ${block.line}${block.kind === "create" ? " · new file" : ""}` }),
    badge, decide),
  el("p", { class: "reason", text: block.reason }),
  failing && !block.applied ? el("p", { class: "accept-means", text: block.accept_means }) : null,
  block.sent_back ? el("p", { class: "sent-back", text: `its feedback went to the model in round ${block.sent_back}` }) : null,
  rows(block.rows, block, actions),
  block.excerpt ? excerpt(block) : null);
}

function excerpt(block) {
  const near = block.excerpt;
  let file;
  let title = `${block.file}: closest lines`;
  if (near.kind === "closest") {
    file = el("div", { class: "code numbered" }, near.lines.map(([number, segments, inside]) =>
      el("div", { class: `row${inside ? " near" : ""}` }, el("span", { class: "ln", text: String(number) }), code(segments))));
  } else if (near.kind === "candidates") {
    const lines = near.places.map((place) => place.line);
    title = `${block.file}: the old text is at ${lines.length > 1 ? "lines" : "line"} ${lines.join(", ")}${near.more ? ` and ${near.more} more places` : ""}`;
    file = el("div", { class: "places" }, near.places.map((place) =>
      el("div", { class: "code numbered place", role: "group", "aria-label": `match at line ${place.line}` },
        place.lines.map(([number, segments]) =>
          el("div", { class: `row${number === place.line ? " near" : ""}` }, el("span", { class: "ln", text: String(number) }), code(segments))))));
  } else {
    title = `${block.file}: why`;
    file = el("pre", { class: "hint", text: near.hint });
  }
  return el("div", { class: "closest", id: `b${block.n}-excerpt`, role: "group", tabindex: "-1",
    "aria-label": `Block ${block.n}: its old text beside the file` },
  el("div", {}, el("h4", { text: "The block's old text" }),
    el("div", { class: "code" }, near.search.map((segments) => el("div", { class: "row" }, code(segments))))),
  el("div", {}, el("h4", { text: title }), file));
}

function partialCard(piece) {
  return el("article", { class: "block s-streaming", id: piece.id, "aria-label": `Block in progress (reply line ${piece.line})` },
    el("header", {}, el("span", { class: "num", text: "Block" }), el("span", { class: "path", text: piece.path }),
      el("span", { class: "badge streaming", role: "status", text: "… in progress" })),
    rows(piece.rows, null, null));
}
