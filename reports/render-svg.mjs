// Renders Vega-Lite specs to SVG files for `pdbench report --md`.
// Usage: node render-svg.mjs JOBS.json
// JOBS.json: [{"spec": <Vega-Lite spec>, "svg": "/path/out.svg"}, ...]
// Each file is written to a temporary name and renamed, so readers never
// see half an image.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as vega from 'vega';
import * as vegaLite from 'vega-lite';

const [jobsPath] = process.argv.slice(2);
if (!jobsPath) {
  console.error('usage: node render-svg.mjs JOBS.json');
  process.exit(2);
}
const jobs = JSON.parse(readFileSync(jobsPath, 'utf8'));
for (const job of jobs) {
  const compiled = vegaLite.compile(job.spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const tmp = `${job.svg}.tmp.${process.pid}`;
  writeFileSync(tmp, svg);
  renameSync(tmp, job.svg);
}
