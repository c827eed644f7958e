// ragstat judge: keyboard grading and span marking. The forms work without
// this script; it only adds keys, the selection and a "saving" state.
// A page says "saved" only after the server has committed and redirected.
"use strict";
(function () {
  const form = document.getElementById("grade-form");
  if (!form) return;
  const status = document.getElementById("status");
  const passage = document.getElementById("passage");
  const spanText = document.getElementById("span-text");
  const spanForm = document.getElementById("span-form");
  let sending = false;

  function submit(f, button) {
    if (sending) return;
    sending = true;
    status.textContent = "Saving…";
    f.requestSubmit(button);
    for (const b of f.querySelectorAll("button")) b.disabled = true;
  }

  // The selection, if it lies inside the passage.
  function selectedText() {
    const sel = window.getSelection();
    if (!sel || sel.rangeCount === 0 || sel.isCollapsed) return "";
    const r = sel.getRangeAt(0);
    if (!passage.contains(r.startContainer) || !passage.contains(r.endContainer)) return "";
    return sel.toString().trim();
  }

  document.addEventListener("selectionchange", function () {
    const t = selectedText();
    if (t) spanText.value = t;
  });

  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = ev.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    const k = ev.key;
    // The grade buttons name their keys: digits, on a scale within 0..9.
    const grade = Array.from(form.querySelectorAll("button[data-key]")).find(function (b) { return b.dataset.key === k; });
    if (grade) {
      ev.preventDefault();
      submit(form, grade);
    } else if (k === "s") {
      ev.preventDefault();
      submit(form, document.getElementById("skip"));
    } else if (k === "b" || k === "ArrowLeft") {
      const a = document.getElementById("back");
      if (a) { ev.preventDefault(); a.click(); }
    } else if (k === "n" || k === "ArrowRight") {
      const a = document.getElementById("forward");
      if (a) { ev.preventDefault(); a.click(); }
    } else if (k === "m") {
      const t = selectedText() || spanText.value.trim();
      if (!t) { status.textContent = "Select text in the passage first."; return; }
      ev.preventDefault();
      spanText.value = t;
      submit(spanForm, document.getElementById("mark"));
    }
  });

  // The note is posted with the grade: keep a draft across reloads.
  const note = document.getElementById("note");
  const draftKey = "ragstat-note:" + location.pathname;
  if (!note.value && sessionStorage.getItem(draftKey)) note.value = sessionStorage.getItem(draftKey);
  note.addEventListener("input", function () { sessionStorage.setItem(draftKey, note.value); });
  form.addEventListener("submit", function () { sessionStorage.removeItem(draftKey); });
})();
