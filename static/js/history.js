// One state, one history entry. A field that updates the page while the reader types (input, debounced) fires
// `change` again when the reader leaves it, and the second answer pushes the URL the first one already pushed:
// Back would then need two presses. A push of the address the page already shows becomes a replace.
document.addEventListener("htmx:beforeHistoryUpdate", (event) => {
  const update = event.detail.history;
  if (update.type === "push" && new URL(update.path, location.href).href === location.href) {
    update.type = "replace";
  }
});
