// The history: every saved conversation of the project, newest first; opening one shows it to review or go on.

import { el } from "./dom.js";

export async function loadHistory(list, open) {
  let data;
  try {
    data = await (await fetch("api/history")).json();
  } catch (error) {
    list.replaceChildren(el("li", { class: "empty", text: `the history cannot be read (${error.message})` }));
    return;
  }
  if (!data.conversations.length) {
    list.replaceChildren(el("li", { class: "empty", text: "No saved conversation yet." }));
    return;
  }
  list.replaceChildren(...data.conversations.map((item) => {
    const current = item.name === data.current;
    const when = item.name.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d).*$/, "$1-$2-$3 $4:$5:$6 UTC");
    return el("li", { class: current ? "current" : "" },
      el("button", { type: "button", "aria-label": `Open conversation: ${item.title}`, "aria-current": current ? "true" : null,
        onclick: () => open(item.name) },
      el("span", { class: "title", text: item.title }),
      el("span", { class: "meta", text: `${when} · ${item.rounds} round${item.rounds === 1 ? "" : "s"}${item.written ? ` · ${item.written} written` : ""}` })));
  }));
}
