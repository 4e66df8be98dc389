// prepare.mjs: assembles the site's pages from the repository's docs/ (one source: the site never keeps a copy).
// Run after tools/DocGen (which writes docs/commands.md and website/.gen/*). Invariants:
//  - every docs/*.md becomes website/docs/<same name>.md, so links between docs pages keep working;
//  - links that leave docs/ (source files, README) become plain code text, so the site has no dead links;
//  - the configuration page gets the generated option and CONFIG parameter references, the benchmarking page the chart
//    drawn from website/benchmark/sample-benchmark.json;
//  - each copied page is wrapped in v-pre, so text such as {{...}} is shown as written, not run as a Vue expression.
import { readFileSync, writeFileSync, readdirSync, mkdirSync, copyFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const site = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(site, '..');
const docs = join(repo, 'docs');
const gen = join(site, '.gen');
const out = join(site, 'docs');

for (const f of ['options.md', 'config-parameters.md', 'commands.json', 'options.json'])
  if (!existsSync(join(gen, f))) throw new Error(`website/.gen/${f} is missing: run tools/DocGen first`);

const pages = readdirSync(docs).filter(f => f.endsWith('.md'));
const known = new Set(pages);

function rewriteLinks(md) {
  // [text](target) where target is relative and not another docs page: keep the text, drop the link.
  return md.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (all, text, target) => {
    if (/^(https?:|mailto:|#)/.test(target)) return all;
    const file = target.split('#')[0];
    if (known.has(file)) return all;
    return text.startsWith('`') ? text : '`' + text + '`';
  });
}

function escapeHtml(md) {
  // Docs are Markdown without raw HTML: a '<' outside code (e.g. "<n> seconds") is text, so it is escaped before Vue
  // compiles the page (where it would open an element).
  let fence = null;
  return md.split('\n').map(line => {
    const f = line.match(/^\s*(```+|~~~+)/);
    if (f) { if (!fence) fence = f[1]; else if (line.trim().startsWith(fence)) fence = null; return line; }
    if (fence) return line;
    return line.split(/(`+[^`]*?`+)/).map((part, i) => i % 2 ? part : part.replace(/</g, '&lt;')).join('');
  }).join('\n');
}

function vpre(md) {
  // Keep the first heading outside so VitePress takes the page title from it.
  const lines = md.split('\n');
  const h = lines.findIndex(l => l.startsWith('# '));
  const head = lines.slice(0, h + 1).join('\n');
  const body = lines.slice(h + 1).join('\n');
  return `${head}\n\n<div v-pre>\n\n${body}\n\n</div>\n`;
}

for (const page of pages) {
  let md = escapeHtml(rewriteLinks(readFileSync(join(docs, page), 'utf8')));
  if (page === 'configuration.md') {
    const firstSection = md.indexOf('\n## ');
    md = md.slice(0, firstSection) + '\n\n' + readFileSync(join(gen, 'options.md'), 'utf8') + '\n' +
      readFileSync(join(gen, 'config-parameters.md'), 'utf8') + md.slice(firstSection);
  }
  md = vpre(md);
  if (page === 'benchmarking.md') {
    const h = md.indexOf('\n\n<div v-pre>');
    md = md.slice(0, h) + '\n\n<BenchmarkChart />\n\n' +
      'The chart above is drawn from `website/benchmark/sample-benchmark.json`, a `--json` file written by Resp.benchmark ' +
      '(the run is described in [Sample results](#sample-results-json-and-chart)).\n' + md.slice(h);
  }
  writeFileSync(join(out, page), md);
}

mkdirSync(join(out, 'public', 'data'), { recursive: true });
for (const f of ['commands.json', 'options.json']) copyFileSync(join(gen, f), join(out, 'public', 'data', f));
console.log(`prepared ${pages.length} pages from docs/ into website/docs/`);
