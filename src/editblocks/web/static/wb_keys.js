// Keyboard shortcuts: move between blocks, accept or reject the current one, apply; `?` lists them.

export const SHORTCUTS = [
  ["j", "next block"],
  ["k", "previous block"],
  ["a", "accept the current block"],
  ["r", "reject the current block"],
  ["A", "apply (Shift+A)"],
  ["Ctrl+Enter", "send the instruction (in the instruction box)"],
  ["?", "show this list"],
  ["Escape", "close this list"],
];

function typing(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

export function installShortcuts({ blocks, current, focusBlock, decide, apply, help }) {
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const list = blocks();
    const here = current();
    const index = here === null ? -1 : list.indexOf(here);
    let handled = true;
    if (event.key === "j") focusBlock(list[Math.min(list.length - 1, index + 1)]);
    else if (event.key === "k") focusBlock(list[Math.max(0, index === -1 ? 0 : index - 1)]);
    else if (event.key === "a" && here !== null) decide(here, true);
    else if (event.key === "r" && here !== null) decide(here, false);
    else if (event.key === "A") apply();
    else if (event.key === "?") help();
    else handled = false;
    if (handled) event.preventDefault();
  });
}
