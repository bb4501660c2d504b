// Claims tables of the flashrr report: click a header to sort by that column
// (numbers as numbers, again to reverse), type in the box above to keep only the
// rows containing the text.  Runs from the page itself; fetches nothing.
(function () {
  function cellValue(row, col) {
    var text = row.cells[col].textContent.trim();
    var num = parseFloat(text);
    return isNaN(num) ? {text: text.toLowerCase()} : {num: num};
  }
  function compare(a, b) {
    if (a.num !== undefined && b.num !== undefined) return a.num - b.num;
    if (a.num !== undefined) return -1;  // numbers before text such as "n/a"
    if (b.num !== undefined) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }
  function sortBy(table, th, col) {
    var up = th.getAttribute("aria-sort") !== "ascending";
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var c = compare(cellValue(r1, col), cellValue(r2, col));
      return up ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function addFilter(table) {
    var box = document.createElement("input");
    box.type = "search";
    box.className = "filter";
    box.placeholder = "filter claims";
    box.setAttribute("aria-label", "filter claims");
    table.parentNode.insertBefore(box, table);
    box.addEventListener("input", function () {
      var want = box.value.trim().toLowerCase();
      var rows = table.tBodies[0].rows;
      for (var i = 0; i < rows.length; i++) {
        rows[i].hidden = want !== "" && rows[i].textContent.toLowerCase().indexOf(want) < 0;
      }
    });
  }
  var tables = document.querySelectorAll("table.claims");
  for (var t = 0; t < tables.length; t++) {
    (function (table) {
      addFilter(table);
      var heads = table.tHead.rows[0].cells;
      for (var c = 0; c < heads.length; c++) {
        (function (th, col) {
          th.addEventListener("click", function () { sortBy(table, th, col); });
        })(heads[c], c);
      }
    })(tables[t]);
  }
})();
