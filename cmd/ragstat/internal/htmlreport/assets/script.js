// Sort a table by the clicked column (numbers numerically), filter rows by
// text, and show the chart panel picked.
(function () {
  "use strict";
  function key(cell) {
    var t = cell.textContent.trim(), n = parseFloat(t.replace(/^\[/, ""));
    return isNaN(n) ? t.toLowerCase() : n;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th").forEach(function (th, col) {
      th.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          var c = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll("input.filter").forEach(function (input) {
    input.addEventListener("input", function () {
      var q = input.value.toLowerCase(), table = document.getElementById(input.dataset.table);
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        r.hidden = q !== "" && r.textContent.toLowerCase().indexOf(q) < 0;
      });
    });
  });
  var pick = document.getElementById("pick");
  if (pick) {
    pick.addEventListener("change", function () {
      document.querySelectorAll(".panel").forEach(function (p) { p.hidden = p.id !== pick.value; });
    });
  }
})();
