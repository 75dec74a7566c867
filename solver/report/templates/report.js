// Keyboard navigation over the cards of the play table (the page reads without it).
// One row at a time is in the tab order (a roving tabindex); the chart marks the card in focus.
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.step"));
  if (!rows.length) return;
  var points = {};
  Array.prototype.forEach.call(document.querySelectorAll(".chart .point"), function (p) {
    points[p.getAttribute("data-ply")] = p;
  });
  var current = 0;
  function show(i, focus) {
    if (i < 0 || i >= rows.length) return;
    rows[current].setAttribute("tabindex", "-1");
    rows[current].classList.remove("current");
    var old = points[rows[current].getAttribute("data-ply")];
    if (old) old.classList.remove("current");
    current = i;
    rows[i].setAttribute("tabindex", "0");
    rows[i].classList.add("current");
    var p = points[rows[i].getAttribute("data-ply")];
    if (p) p.classList.add("current");
    if (focus) rows[i].focus();
  }
  rows.forEach(function (row, i) {
    row.setAttribute("tabindex", i === 0 ? "0" : "-1");
    row.addEventListener("focus", function () { if (i !== current) show(i, false); });
    row.addEventListener("click", function () { show(i, true); });
  });
  function costly(from, step) {
    for (var i = from + step; i >= 0 && i < rows.length; i += step) {
      if (rows[i].getAttribute("data-kind") !== "best") return i;
    }
    return from;
  }
  document.querySelector("table.play").addEventListener("keydown", function (ev) {
    // the browser's own keys (Ctrl+P prints, Alt+arrows go back and forward) are left to it
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var next = null;
    switch (ev.key) {
      case "ArrowDown": case "j": next = current + 1; break;
      case "ArrowUp": case "k": next = current - 1; break;
      case "n": next = costly(current, 1); break;
      case "p": next = costly(current, -1); break;
      case "Home": next = 0; break;
      case "End": next = rows.length - 1; break;
      default: return;
    }
    ev.preventDefault();
    show(Math.max(0, Math.min(rows.length - 1, next)), true);
  });
  // A chart mark followed by the keyboard or the mouse lands on its row.
  window.addEventListener("hashchange", function () {
    var row = document.getElementById(location.hash.slice(1));
    var i = rows.indexOf(row);
    if (i >= 0) show(i, true);
  });
})();
