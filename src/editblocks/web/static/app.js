// The review page: draws the view the server sends, and turns clicks into the server's actions.

import { el, jump } from "./dom.js";
import { renderAnswer } from "./blocks.js";
import { renderFileList, renderFiles } from "./diffs.js";

const state = { view: JSON.parse(document.getElementById("initial-view").textContent), layout: "unified" };
const $ = (id) => document.getElementById(id);

async function post(path, body = {}) {
  try {
    const response = await fetch(path, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    });
    if (response.ok) show(await response.json());
    else $("message").textContent = `the server refused: ${response.status}`;
  } catch (error) {
    $("message").textContent = `the server cannot be reached (${error.message}); is editblocks serve still running?`;
  }
}

const actions = { decide: (numbers, accept) => post("api/decide", { blocks: numbers, accept }) };

function show(view) {
  if (view.version < state.view.version) return;
  state.view = view;
  render();
}

function summary(view) {
  const c = view.summary.counts;
  const total = view.blocks.length;
  const parts = [el("p", { class: "counts" },
    el("strong", { text: `${total} block${total === 1 ? "" : "s"}` }),
    ...["applied", "pending", "held", "failed", "skipped"].map((status) =>
      el("span", { class: `count-${status}`, text: ` · ${c[status]} ${status}` })),
    view.streaming ? el("span", { class: "streaming-note", text: " · the answer is still arriving…" }) : null)];
  if (view.summary.changed.length) {
    parts.push(el("p", { class: "changed" }, view.applied ? "Modified: " : "Would modify: ",
      view.summary.changed.map((file, i) => [i ? ", " : "", el("a", { href: `#${file.id}`, text: file.path,
        onclick: (event) => { event.preventDefault(); jump(file.id); } })])));
  }
  if (view.summary.failures.length) {
    parts.push(el("ul", { class: "failures" }, view.summary.failures.map((failure) => el("li", {},
      el("a", { href: `#b${failure.n}`, text: `Block ${failure.n}`,
        onclick: (event) => { event.preventDefault(); jump(`b${failure.n}`); } }),
      ` (${failure.path}): ${failure.reason}`))));
  }
  if (view.summary.notes.length) {
    parts.push(el("ul", { class: "notes" }, view.summary.notes.map((note) => el("li", { text: note }))));
  }
  return parts;
}

function render() {
  const view = state.view;
  const focused = document.activeElement && document.activeElement.getAttribute("aria-label");
  $("summary").replaceChildren(...summary(view));
  $("pieces").replaceChildren(...renderAnswer(view, actions));
  $("filelist").replaceChildren(...renderFileList(view, actions));
  $("files").replaceChildren(...renderFiles(view, state.layout));
  $("apply").disabled = !view.can_apply;
  $("undo").disabled = !view.applied;
  $("newest").hidden = !view.newest_run;
  $("newest-note").textContent = view.newest_run ? `takes back run ${view.newest_run}, made by another editblocks command` : "";
  $("message").textContent = view.message;
  $("feedback-box").hidden = !view.feedback;
  $("feedback").textContent = view.feedback;
  $("unified").setAttribute("aria-pressed", String(state.layout === "unified"));
  $("split").setAttribute("aria-pressed", String(state.layout === "split"));
  document.body.dataset.version = String(view.version);
  if (focused) {
    const again = [...document.querySelectorAll("[aria-label]")].find((node) => node.getAttribute("aria-label") === focused);
    if (again) again.focus({ preventScroll: true });
  }
}

async function copyFeedback() {
  const text = state.view.feedback;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const range = document.createRange();
    range.selectNodeContents($("feedback"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    document.execCommand("copy");
  }
  $("message").textContent = "feedback copied";
}

function listen() {
  const source = new EventSource(`events?since=${state.view.version}`);
  source.addEventListener("view", (event) => show(JSON.parse(event.data)));
}

$("apply").addEventListener("click", () => post("api/apply"));
$("undo").addEventListener("click", () => post("api/undo"));
$("undo-newest").addEventListener("click", () => post("api/undo", { newest: true }));
$("copy").addEventListener("click", copyFeedback);
for (const layout of ["unified", "split"]) {
  $(layout).addEventListener("click", () => { state.layout = layout; render(); });
}
$("paste-form").addEventListener("submit", (event) => {
  event.preventDefault();
  post("api/answer", { text: $("paste-text").value });
});
render();
performance.mark("editblocks:first-render");  // bench/serve_bench.py reads it
listen();
