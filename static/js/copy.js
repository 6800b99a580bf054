// Copy buttons: <button data-copy="ID"> copies the text of the element with that id, or the full address of a link.
// One listener on the document, so buttons that HTMX swaps in work too. Without JavaScript the commands stay
// selectable text and the permalink a link.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) return;
  const text = source.localName === "a" ? source.href : source.textContent.trim();
  navigator.clipboard.writeText(text).then(() => {
    const label = button.textContent;
    button.textContent = button.dataset.copied || "✓";
    setTimeout(() => { button.textContent = label; }, 1500);
  });
});
