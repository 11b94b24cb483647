// The workbench page: keeps what the server sent, applies each update (only what changed), turns clicks and keys
// into the server's actions.

import { el, jump } from "./dom.js";
import { fillTurn, pieceNode, turnShell } from "./wb_cards.js";
import { fileDiffs, fileList } from "./wb_diffs.js";
import { loadHistory } from "./wb_history.js";
import { installShortcuts, SHORTCUTS } from "./wb_keys.js";
import { Picker } from "./wb_picker.js";

const $ = (id) => document.getElementById(id);
const state = {
  version: -1, state: null, order: [], turns: new Map(), files: [], layout: "unified", wide: new Map(),
  conversation: null, running: false,
};
const nodes = new Map();  // piece id -> its element
const turnNodes = new Map();  // round number -> its element

function say(text) {
  $("message").textContent = text;
}

async function post(path, body = {}) {
  try {
    const response = await fetch(path, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      say(answer.error || `the server refused: ${response.status}`);
      return false;
    }
    return true;
  } catch (error) {
    say(`the server cannot be reached (${error.message}); is editblocks serve still running?`);
    return false;
  }
}

const actions = {
  post,
  decide: (numbers, accept) => post("api/decide", { blocks: numbers, accept }),
  locked: () => state.running,
  widen: (file, context) => widen(file, context),
};

function update(data) {
  if (data.version <= state.version) return;
  state.version = data.version;
  const wasRunning = state.running;
  state.state = data.state;
  state.running = data.state.running;
  if (data.files) {
    state.files = data.files;
    state.wide.clear();
  }
  const conversationChanged = state.conversation !== data.state.conversation;
  if (conversationChanged || data.order.length < state.order.length) {
    state.turns.clear();
    nodes.clear();
    turnNodes.clear();
    $("turns").replaceChildren();
  }
  state.conversation = data.state.conversation;
  for (const turn of data.turns) {
    const known = state.turns.get(turn.n) || { pieces: new Map() };
    for (const piece of turn.changed) known.pieces.set(piece.id, piece);
    known.header = turn;
    state.turns.set(turn.n, known);
    drawTurn(known);
  }
  if (data.files || wasRunning !== state.running) redrawBlocks();
  state.order = data.order;
  drawState();
  if (data.files || wasRunning !== state.running) drawFiles();
  if (conversationChanged || (wasRunning && !state.running)) refreshHistory();
  if (conversationChanged && data.order.length) {
    const last = state.turns.get(data.order[data.order.length - 1]);
    if (last) picker.pick(last.header.files);
  }
  document.body.dataset.version = String(state.version);
}

function keepFocus(draw) {
  const focused = document.activeElement;
  const label = focused && focused !== document.body ? focused.getAttribute("aria-label") : null;
  draw();
  if (label && !document.contains(focused)) {
    const again = [...document.querySelectorAll("[aria-label]")].find((node) => node.getAttribute("aria-label") === label);
    if (again) again.focus({ preventScroll: true });
  }
}

function drawTurn(turn) {
  const header = turn.header;
  keepFocus(() => {
    let node = turnNodes.get(header.n);
    if (!node) {
      node = turnShell(header.n);
      turnNodes.set(header.n, node);
      $("turns").append(node);
    }
    fillTurn(node, header, actions);
    const changed = new Set(header.changed.map((piece) => piece.id));
    const holder = node.querySelector(".assistant .pieces");
    let cursor = holder.firstChild;
    for (const id of header.pieces) {
      const piece = turn.pieces.get(id);
      if (!piece) continue;
      let child = nodes.get(id);
      if (!child || changed.has(id)) {
        const drawn = pieceNode(piece, state, actions);
        if (child) {
          if (cursor === child) cursor = drawn;
          child.replaceWith(drawn);
        }
        child = drawn;
        nodes.set(id, child);
      }
      if (child === cursor) cursor = cursor.nextSibling;
      else holder.insertBefore(child, cursor);
    }
    while (cursor) {
      const next = cursor.nextSibling;
      cursor.remove();
      cursor = next;
    }
  });
}

function redrawBlocks() {
  keepFocus(() => {
    for (const turn of state.turns.values()) {
      for (const piece of turn.pieces.values()) {
        if (piece.t !== "block") continue;
        const old = nodes.get(piece.id);
        if (!old) continue;
        const drawn = pieceNode(piece, state, actions);
        old.replaceWith(drawn);
        nodes.set(piece.id, drawn);
      }
    }
  });
}

function drawState() {
  const s = state.state;
  $("model").textContent = s.problem ? s.problem : `model ${s.model} at ${s.where}`;
  $("model").classList.toggle("bad", Boolean(s.problem));
  const select = $("format");
  if (select.options.length !== s.formats.length) {
    select.replaceChildren(...s.formats.map((name) => el("option", { value: name, text: name })));
  }
  if (document.activeElement !== select) select.value = s.format;
  $("apply").disabled = !s.can_apply;
  $("undo").disabled = !s.can_undo;
  $("send").disabled = s.running || Boolean(s.problem);
  $("new").disabled = s.running;
  $("feedback").hidden = !s.can_feedback;
  $("message").textContent = s.message;
  $("notice").hidden = !s.notice;
  $("notice").textContent = s.notice;
  $("empty").hidden = state.order.length > 0;
  $("summary").replaceChildren(...summary(s));
  $("unified").setAttribute("aria-pressed", String(state.layout === "unified"));
  $("split").setAttribute("aria-pressed", String(state.layout === "split"));
  document.body.classList.toggle("layout-split", state.layout === "split");
}

function summary(s) {
  const c = s.summary.counts;
  const total = s.summary.total;
  const parts = [el("p", { class: "counts" },
    el("strong", { text: `${total} block${total === 1 ? "" : "s"}` }),
    ...["ready", "applied", "held", "failed", "skipped", "rejected"].map((status) =>
      el("span", { class: `count-${status}`, text: ` · ${c[status]} ${status}` })),
    s.summary.streaming ? el("span", { class: "streaming-note", text: ` · ${s.summary.streaming} in progress` }) : null,
    s.running ? el("span", { class: "streaming-note", text: " · the model is answering…" }) : null)];
  if (s.summary.changed.length) parts.push(el("p", { class: "changed", text: `Apply would write: ${s.summary.changed.join(", ")}` }));
  if (s.summary.failures.length) {
    parts.push(el("ul", { class: "failures" }, s.summary.failures.map((failure) => el("li", {},
      el("a", { href: `#b${failure.n}`, text: `Block ${failure.n}`,
        onclick: (event) => { event.preventDefault(); jump(`b${failure.n}`); } }),
      ` (${failure.path}): ${failure.reason}`))));
  }
  return parts;
}

function drawFiles() {
  keepFocus(() => {
    $("filelist").replaceChildren(...fileList(state.files, actions));
    $("files").replaceChildren(...fileDiffs(state.files, state.layout, state.wide, actions));
  });
}

async function widen(file, context) {
  if (context === 3) {
    state.wide.delete(file.id);
    drawFiles();
    return;
  }
  try {
    const response = await fetch(`api/diff?file=${encodeURIComponent(file.path)}&id=${file.id}&context=${context}`);
    const answer = await response.json();
    if (!response.ok) { say(answer.error || `the server refused: ${response.status}`); return; }
    state.wide.set(file.id, answer);
    drawFiles();
  } catch (error) {
    say(`the server cannot be reached (${error.message})`);
  }
}

function refreshHistory() {
  loadHistory($("history"), (name) => post("api/open", { name }));
}

function listen() {
  const source = new EventSource(`events?since=${state.version}`);
  source.addEventListener("update", (event) => update(JSON.parse(event.data)));
}

async function send() {
  const text = $("instruction").value;
  if (await post("api/send", { instruction: text, files: [...picker.picked] })) $("instruction").value = "";
}

function blocks() {
  return [...document.querySelectorAll("article.block[data-n]")].map((node) => Number(node.dataset.n));
}

function current() {
  const here = document.activeElement && document.activeElement.closest("article.block[data-n]");
  return here ? Number(here.dataset.n) : null;
}

function showHelp() {
  $("shortcut-list").replaceChildren(...SHORTCUTS.flatMap(([key, what]) => [el("dt", {}, el("kbd", { text: key })), el("dd", { text: what })]));
  $("shortcuts").hidden = false;
  $("shortcuts-close").focus();
}

function hideHelp() {
  $("shortcuts").hidden = true;
  $("help").focus();
}

const picker = new Picker($("tree"), $("filter"), $("picked"), () => {});
$("ask").addEventListener("submit", (event) => { event.preventDefault(); send(); });
$("instruction").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); send(); }
});
$("apply").addEventListener("click", () => post("api/apply", { seen: state.state.review }));
$("undo").addEventListener("click", () => post("api/undo"));
$("new").addEventListener("click", () => post("api/new"));
$("feedback").addEventListener("click", () => post("api/feedback"));
$("format").addEventListener("change", (event) => post("api/format", { format: event.target.value }));
$("help").addEventListener("click", showHelp);
$("shortcuts-close").addEventListener("click", hideHelp);
$("shortcuts").addEventListener("keydown", (event) => { if (event.key === "Escape") { event.preventDefault(); hideHelp(); } });
for (const layout of ["unified", "split"]) {
  $(layout).addEventListener("click", () => { state.layout = layout; drawState(); drawFiles(); });
}
installShortcuts({
  blocks, current,
  focusBlock: (n) => { if (n !== undefined) jump(`b${n}`); },
  decide: (n, accept) => { if (!state.running) actions.decide([n], accept); },
  apply: () => { if (!$("apply").disabled) $("apply").click(); },
  help: showHelp,
});
update(JSON.parse($("initial").textContent));
picker.load();
refreshHistory();
performance.mark("editblocks:first-render");
listen();
