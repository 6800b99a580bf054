// Sections a reader opened stay open when the calculator re-renders them in place or Back restores an earlier
// state, and a link to a closed section (the page's section menu, a permalink with #context) opens it.
const opened = new Set();
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (!(details instanceof HTMLDetailsElement) || !details.id || !details.hasAttribute("data-keep-open")) return;
  if (details.open) opened.add(details.id);
  else opened.delete(details.id);
}, true);
const reopen = () => {
  for (const id of opened) document.getElementById(id)?.setAttribute("open", "");
};
document.addEventListener("htmx:afterSwap", reopen);
document.addEventListener("htmx:historyRestore", reopen);
const openTarget = () => {
  const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  const details = target && (target.matches("details") ? target : target.querySelector("details[data-keep-open]"));
  if (details) details.open = true;
};
window.addEventListener("hashchange", openTarget);
document.addEventListener("DOMContentLoaded", openTarget);
