// The peers of `gpuwatch report` for bench/report_bench.py --peers: DuckDB and Polars through
// their Node.js packages (@duckdb/node-api, nodejs-polars; pip cannot reach PyPI on the
// development VM). Each reads gpuwatch's gpu.csv with its own CSV reader and computes, per GPU
// (the index column), mean, p5, p50, p95 and max of every numeric column: the statistics of
// the report's tables, without its phases and verdicts.
//
// usage: NODE_PATH=DIR/node_modules node bench/report_peers.cjs duckdb|polars GPU_CSV
// (npm install --prefix DIR @duckdb/node-api nodejs-polars). Prints the result's shape.
'use strict';
const [engine, path] = process.argv.slice(2);
const SKIP = new Set(['timestamp', 'index', 'pstate', 'clocks_event_reasons.active']);

async function duckdb() {
  const { DuckDBInstance } = require('@duckdb/node-api');
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  const src = `read_csv('${path.replace(/'/g, "''")}')`;
  const cols = (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRows()
    .map((r) => r[0]).filter((c) => !SKIP.has(c));
  const q = (c) => `"${c.replace(/"/g, '""')}"`;
  const aggs = cols.map((c) => `avg(${q(c)}), quantile_cont(${q(c)}, [0.05, 0.5, 0.95]), ` +
    `max(${q(c)})`).join(', ');
  const rows = (await con.runAndReadAll(`SELECT "index", ${aggs} FROM ${src} GROUP BY "index"`))
    .getRows();
  console.log(`duckdb: ${rows.length} GPUs x ${cols.length} columns`);
}

function polars() {
  const pl = require('nodejs-polars');
  // gpu.csv has a space after each comma: Polars keeps it in names and reads every cell as
  // text, so each column is trimmed and cast, the fix a data engineer would write
  const raw = pl.readCSV(path);
  const names = raw.columns.map((c) => c.trim());
  const cols = names.filter((c) => !SKIP.has(c));
  const df = raw.select(...raw.columns.map((c, i) => {
    const e = pl.col(c).str.strip();
    return (SKIP.has(names[i]) && names[i] !== 'index' ? e : e.cast(pl.Float64)).alias(names[i]);
  }));
  const aggs = [];
  for (const c of cols) {
    aggs.push(pl.col(c).mean().alias(`${c} mean`), pl.col(c).max().alias(`${c} max`));
    for (const p of [0.05, 0.5, 0.95])
      aggs.push(pl.col(c).quantile(p, 'linear').alias(`${c} p${p * 100}`));
  }
  const out = df.groupBy('index').agg(...aggs);
  console.log(`polars: ${out.height} GPUs x ${cols.length} columns`);
}

(engine === 'duckdb' ? duckdb() : Promise.resolve(polars())).catch((e) => {
  console.error(`${engine}: ${e.message}`);
  process.exit(1);
});
