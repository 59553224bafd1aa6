// trainledger site: draws the Plotly charts and makes tables sortable and filterable. No network.
"use strict";

function drawCharts() {
  document.querySelectorAll("div.chart[data-chart]").forEach(function (el) {
    var spec = JSON.parse(document.getElementById(el.dataset.chart).textContent);
    if (typeof Plotly === "undefined") {
      el.textContent = "Chart unavailable: assets/plotly.min.js did not load. The table holds the same numbers.";
      return;
    }
    Plotly.newPlot(el, spec.data, spec.layout, {responsive: true, displaylogo: false,
      modeBarButtonsToRemove: ["select2d", "lasso2d"]});
  });
}

function cellValue(row, index) {
  var cell = row.cells[index];
  return cell ? cell.getAttribute("data-value") || "" : "";
}

function sortTable(table, index, numeric) {
  var th = table.tHead.rows[0].cells[index];
  var ascending = th.getAttribute("aria-sort") !== "ascending";
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
  th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) {
    var x = cellValue(a, index), y = cellValue(b, index);
    var result;
    if (numeric) {
      if (x === "" || y === "") { return (x === "") - (y === ""); }  // empty cells last
      result = parseFloat(x) - parseFloat(y);
    } else {
      result = x.localeCompare(y);
    }
    return ascending ? result : -result;
  });
  rows.forEach(function (r) { body.appendChild(r); });
}

function setUpSorting() {
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      var button = th.querySelector("button");
      if (!button) { return; }
      button.addEventListener("click", function () {
        sortTable(table, index, th.classList.contains("num"));
      });
    });
  });
}

function setUpFilters() {
  document.querySelectorAll("form.filters").forEach(function (form) {
    var table = document.getElementById(form.dataset.table);
    var count = form.querySelector("output");
    function apply() {
      var text = (form.elements.q.value || "").toLowerCase();
      var selects = form.querySelectorAll("select");
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var keep = !text || row.textContent.toLowerCase().indexOf(text) >= 0;
        selects.forEach(function (s) {
          if (s.value && cellValue(row, parseInt(s.dataset.column, 10)) !== s.value) { keep = false; }
        });
        row.hidden = !keep;
        shown += keep ? 1 : 0;
      });
      if (count) { count.textContent = shown + " shown"; }
    }
    form.addEventListener("input", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    apply();
  });
}

document.addEventListener("DOMContentLoaded", function () {
  setUpSorting();
  setUpFilters();
  drawCharts();
});
