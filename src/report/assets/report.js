/* gpuwatch HTML report: draws the charts from the JSON in #gw-data with uPlot (embedded before
 * this script). Everything shown comes from that JSON and is set with textContent, never as HTML.
 * Data format: docs/charts.md. */
(function () {
  "use strict";

  var PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
                 "#e377c2", "#7f7f7f", "#bcbd22"];
  var SEVERITY_FILL = {warning: "rgba(255,127,14,0.07)", critical: "rgba(214,39,40,0.09)"};
  var SEVERITY_LINE = {info: "#1f77b4", warning: "#e07000", critical: "#d62728"};
  var BAND_FILL = ["rgba(255,127,14,0.25)", "rgba(214,39,40,0.28)", "rgba(148,103,189,0.30)"];
  var DASH = {util: [], sm: [6, 3], tensor: [2, 3], rss: [6, 3]};

  var data = JSON.parse(document.getElementById("gw-data").textContent);
  var charts = [];
  var gpuShown = data.gpus.map(function () { return true; });

  function color(gpu, k) {
    return gpu >= 0 ? PALETTE[gpu % PALETTE.length] : PALETTE[(k + 4) % PALETTE.length];
  }

  /* Delta-encoded integers -> absolute values. */
  function undelta(a, base) {
    var out = new Array(a.length), acc = base;
    for (var i = 0; i < a.length; i++) { acc += a[i]; out[i] = acc; }
    return out;
  }

  /* One series' values on the chart's grid: undefined where it has no sample (the line is drawn
   * across), null where the value is absent (the line breaks). */
  function expand(s, n) {
    var y = new Array(n);
    if (s.c !== undefined) { for (var j = 0; j < n; j++) y[j] = s.c; return y; }
    var idx = s.i ? undelta(s.i, 0) : null;
    for (var k = 0; k < s.v.length; k++) y[idx ? idx[k] : k] = s.v[k];
    return y;
  }

  /* Seconds from the start of a file whose date is unknown (its times count from 0, not from
   * a date). */
  function sinceStart(s) {
    return "+" + (Math.abs(s) < 100 ? s.toFixed(1) : s.toFixed(0)) + " s";
  }

  /* Tick labels of the time axis in UTC, 24-hour; the date where it changes. */
  function timeLabels(u, splits, ai, space, incr) {
    if (data.dateless) return splits.map(sinceStart);
    var lastDate = null;
    return splits.map(function (t) {
      var iso = new Date(t * 1000).toISOString(), date = iso.slice(0, 10);
      var clock = iso.slice(11, incr < 1 ? 23 : incr < 60 ? 19 : 16);
      var label = date !== lastDate ? clock + "\n" + date : clock;
      lastDate = date;
      return label;
    });
  }

  function fmtTime(t) {
    return data.dateless ? sinceStart(t) : new Date(t * 1000).toISOString().replace(".000Z", "Z");
  }

  /* Epoch lines and verdict spans on every chart; throttle bands on the clock chart. */
  function overlayPlugin(chart) {
    function xpx(u, t) { return u.valToPos(t, "x", true); }
    function drawSpans(u, ctx, top, h) {
      data.verdicts.forEach(function (v) {
        if (v.gpu >= 0 && !gpuShown[v.gpu]) return;
        var x0 = Math.max(xpx(u, v.start), u.bbox.left);
        var x1 = Math.min(xpx(u, v.end), u.bbox.left + u.bbox.width);
        if (x1 <= x0) return;
        if (v.severity !== "info") {  /* info spans (gpu_saturated) would tint everything */
          ctx.fillStyle = SEVERITY_FILL[v.severity] || SEVERITY_FILL.warning;
          ctx.fillRect(x0, top, x1 - x0, h);
        }
        ctx.fillStyle = SEVERITY_LINE[v.severity] || "#333";
        ctx.fillRect(x0, top, x1 - x0, 3 * devicePixelRatio);
        ctx.font = (10 * devicePixelRatio) + "px sans-serif";
        ctx.fillText(v.id + (v.gpu >= 0 && data.gpus.length > 1 ? " (" + data.gpus[v.gpu].label + ")" : ""),
                     x0 + 3 * devicePixelRatio, top + h - 4 * devicePixelRatio);
      });
    }
    function drawBands(u, ctx, top, h) {
      var lanes = [];
      gpuShown.forEach(function (on, g) { if (on) lanes.push(g); });
      if (!lanes.length) return;
      var laneH = h / lanes.length;
      data.bands.forEach(function (b) {
        var lane = lanes.indexOf(b[0]);
        if (lane < 0) return;
        var x0 = Math.max(xpx(u, b[2]), u.bbox.left);
        var x1 = Math.min(xpx(u, b[3]), u.bbox.left + u.bbox.width);
        if (x1 <= x0) return;
        ctx.fillStyle = BAND_FILL[b[1] % BAND_FILL.length];
        ctx.fillRect(x0, top + lane * laneH, Math.max(x1 - x0, devicePixelRatio), laneH);
      });
    }
    function drawEpochs(u, ctx, top, h) {
      ctx.strokeStyle = "#555";
      ctx.fillStyle = "#333";
      ctx.lineWidth = devicePixelRatio;
      ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
      ctx.font = (10 * devicePixelRatio) + "px sans-serif";
      data.epochs.forEach(function (e) {
        var x = xpx(u, e.t);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, top + h);
        ctx.stroke();
        ctx.fillText(e.label, x + 3 * devicePixelRatio, top + 14 * devicePixelRatio);
      });
      ctx.setLineDash([]);
    }
    /* gpuwatch mark's marks: dotted purple lines, their text at the foot of the plot */
    function drawMarks(u, ctx, top, h) {
      if (!data.marks) return;
      ctx.strokeStyle = "#7b3fa0";
      ctx.fillStyle = "#5a2d78";
      ctx.lineWidth = devicePixelRatio;
      ctx.setLineDash([2 * devicePixelRatio, 2 * devicePixelRatio]);
      ctx.font = (10 * devicePixelRatio) + "px sans-serif";
      var lastEnd = -Infinity;
      data.marks.forEach(function (m) {
        var x = xpx(u, m.t);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, top + h);
        ctx.stroke();
        var w = ctx.measureText(m.label).width;
        if (x <= lastEnd) return; /* the line alone where texts would overlap */
        ctx.fillText(m.label, x + 3 * devicePixelRatio, top + h - 4 * devicePixelRatio);
        lastEnd = x + w + 6 * devicePixelRatio;
      });
      ctx.setLineDash([]);
    }
    return {
      hooks: {
        drawClear: function (u) {
          var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
          ctx.save();
          drawSpans(u, ctx, top, h);
          if (chart.bands) drawBands(u, ctx, top, h);
          ctx.restore();
        },
        draw: function (u) {
          var ctx = u.ctx;
          ctx.save();
          drawEpochs(u, ctx, u.bbox.top, u.bbox.height);
          drawMarks(u, ctx, u.bbox.top, u.bbox.height);
          ctx.restore();
        }
      }
    };
  }

  var syncing = false;
  function syncZoom(u, key) {
    if (key !== "x" || syncing) return;
    syncing = true;
    var min = u.scales.x.min, max = u.scales.x.max;
    charts.forEach(function (c) {
      if (c.u !== u && (c.u.scales.x.min !== min || c.u.scales.x.max !== max))
        c.u.setScale("x", {min: min, max: max});
    });
    syncing = false;
  }

  function width() {
    return Math.max(400, document.getElementById("gw-charts").clientWidth - 20);
  }

  function makeChart(chart, parent) {
    var box = document.createElement("div");
    box.className = "gw-chart";
    box.id = "chart-" + chart.id;
    parent.appendChild(box);
    var x = undelta(chart.x, 0).map(function (ms) { return (data.t0 + ms) / 1000; });
    var aligned = [x];
    var series = [{label: data.relative ? "time from each run's start" : data.dateless ? "time (date unknown)" : "time (UTC)", value: function (u, v) { return v == null ? "--" : fmtTime(v); }}];
    /* room for a whole "22:10:45" (or "+123.4 s") between ticks at any duration: uPlot's
     * default 50 px ran them into one string on a 2-minute run */
    var axes = [{values: timeLabels, space: 90}];
    chart.axes.forEach(function (ax, k) {
      axes.push({scale: ax.unit, side: k === 0 ? 3 : 1, label: ax.label, grid: {show: k === 0},
                 size: 60});
    });
    /* an empty right axis as wide as a labelled one, so every chart's plot has one width */
    if (chart.axes.length === 1)
      axes.push({scale: chart.axes[0].unit, side: 1, size: 90, grid: {show: false},
                 ticks: {show: false}, values: function () { return []; }});
    chart.series.forEach(function (s, k) {
      aligned.push(expand(s, x.length));
      series.push({
        label: s.label, scale: chart.axes[s.axis || 0].unit, spanGaps: false,
        stroke: s.ref ? "#888" : color(s.gpu, k), width: s.ref ? 1 : 1.5,
        dash: s.ref ? [8, 4] : (DASH[s.metric] || []),
        points: {show: false},
        value: function (u, v) { return v == null ? "--" : v + " " + chart.axes[s.axis || 0].unit; }
      });
    });
    var scales = {x: {time: true}};
    chart.axes.forEach(function (ax) {
      scales[ax.unit] = {range: function (u, min, max) {
        var lo = ax.zero ? 0 : min, hi = ax.max != null ? Math.max(ax.max, max) : max;
        if (lo == null || hi == null) return [0, ax.max || 1];
        if (hi <= lo) hi = lo + 1;
        return [lo, hi + (ax.max != null ? 0 : (hi - lo) * 0.05)];
      }};
    });
    var opts = {
      title: chart.title, width: width(), height: 260,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC"); },
      cursor: {sync: {key: "gw", setSeries: false}},
      scales: scales, series: series, axes: axes,
      legend: {live: true},
      plugins: [overlayPlugin(chart)],
      hooks: {setScale: [syncZoom]}
    };
    var u = new uPlot(opts, aligned, box);
    charts.push({id: chart.id, title: chart.title, u: u, spec: chart});
  }

  function toggleGpu(g, on) {
    gpuShown[g] = on;
    charts.forEach(function (c) {
      c.spec.series.forEach(function (s, k) {
        if (s.gpu === g) c.u.setSeries(k + 1, {show: on});
      });
      c.u.redraw(false);
    });
  }

  function gpuToggles(parent) {
    if (data.gpus.length < 2) return;
    var bar = document.createElement("div");
    bar.className = "gw-gpus";
    bar.appendChild(document.createTextNode("GPUs: "));
    data.gpus.forEach(function (g, i) {
      var l = document.createElement("label");
      var cb = document.createElement("input");
      cb.type = "checkbox";
      cb.checked = true;
      cb.addEventListener("change", function () { toggleGpu(i, cb.checked); });
      l.appendChild(cb);
      var sw = document.createElement("span");
      sw.className = "gw-swatch";
      sw.style.background = color(i, 0);
      l.appendChild(sw);
      l.appendChild(document.createTextNode(g.label));
      bar.appendChild(l);
    });
    parent.appendChild(bar);
  }

  function legendNote(parent) {
    var p = document.createElement("p");
    p.className = "gw-note";
    var kinds = data.bandKinds.map(function (k, i) {
      return k + " (" + ["orange", "red", "purple"][i] + ")";
    }).join(", ");
    p.textContent = "Drag to zoom (all charts follow), double-click to reset; click a legend " +
      "entry to hide it." + (data.relative ? "" : " Dashed vertical lines: epochs. Spans: verdicts (blue info, " +
      "orange warning, red critical; info only marked at the top). Bands on the SM clock chart, one lane per GPU: " + kinds + ".");
    parent.appendChild(p);
  }

  var root = document.getElementById("gw-charts");
  gpuToggles(root);
  legendNote(root);
  data.charts.forEach(function (c) { makeChart(c, root); });
  window.addEventListener("resize", function () {
    charts.forEach(function (c) { c.u.setSize({width: width(), height: 260}); });
  });
  window.gwReport = {charts: charts, data: data, readyMs: performance.now()};
  document.body.setAttribute("data-ready", "1");
})();
