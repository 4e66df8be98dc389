// site-check.mjs: serves the built site (docs/.vitepress/dist) on 127.0.0.1 and checks it in headless Debian Chromium
// driven by playwright-core (no browser download): starting from the home page it crawls every internal link; each
// page must load with status 200 and log no console error or page error, and each link's #anchor must exist on its
// page. Screenshots of the home and commands pages (and the benchmark chart) are written to ARTIFACTS (default: <repo>/artifacts/website).
// Also checks that the commands page has its generated reference and the benchmarking page its chart.
// Exit code: 0 when every check passed, 1 otherwise (each failure is printed).
import { createServer } from 'node:http';
import { readFile, stat, mkdtemp, mkdir, rm } from 'node:fs/promises';
import { join, extname, normalize, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const site = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(site, 'docs', '.vitepress', 'dist');
const artifacts = process.env.ARTIFACTS ?? join(site, '..', 'artifacts', 'website');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.woff2': 'font/woff2', '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain' };

const server = createServer(async (req, res) => {
  try {
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    path = normalize(path).replace(/^(\.\.[/\\])+/, '');
    let file = join(dist, path);
    if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
    if (!(await stat(file).catch(() => null)) && !extname(file)) file += '.html';
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }
});
await new Promise(r => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;

const failures = [];
const userDataDir = await mkdtemp(join(tmpdir(), 'website-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: chromiumPath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 900 },
});
await mkdir(artifacts, { recursive: true });

const queue = ['/'];
const seen = new Set(queue);
const anchors = [];            // [fromPage, path, hash]
const ids = new Map();          // path -> Set of element ids
let links = 0;
try {
  while (queue.length > 0) {
    const path = queue.shift();
    const page = await context.newPage();
    const errors = [];
    page.on('console', m => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    page.on('pageerror', e => errors.push(`page error: ${e.message}`));
    page.on('response', r => { if (r.url().startsWith(origin) && r.status() >= 400) errors.push(`HTTP ${r.status()} for ${r.url()}`); });
    const response = await page.goto(origin + path, { waitUntil: 'networkidle' });
    if (!response || response.status() !== 200) errors.push(`status ${response?.status()}`);
    if (!(await page.locator('h1').count())) errors.push('no <h1>');
    ids.set(path, new Set(await page.$$eval('[id]', els => els.map(e => e.id))));
    const hrefs = await page.$$eval('a[href]', as => as.map(a => a.getAttribute('href')));
    for (const href of hrefs) {
      const url = new URL(href, origin + path);
      if (url.origin !== origin) continue;
      links++;
      const target = url.pathname;
      if (url.hash.length > 1) anchors.push([path, target, decodeURIComponent(url.hash.slice(1))]);
      if (!/\.(html)$|\/$/.test(target)) continue;          // assets are checked by the HTTP status of the pages using them
      if (!seen.has(target)) { seen.add(target); queue.push(target); }
    }
    if (path === '/' || path === '/commands.html') {
      const name = path === '/' ? 'home.png' : 'commands.png';
      await page.screenshot({ path: join(artifacts, name) });
    }
    if (path === '/commands.html') {
      if (!(await page.locator('h2#command-reference-generated').count())) errors.push('commands page: no generated reference');
      if (!(await page.locator('td code', { hasText: /^GET$/ }).count())) errors.push('commands page: no GET row');
    }
    if (path === '/benchmarking.html') {
      const bars = await page.locator('figure.benchmark-chart svg rect[fill^="#"]').count();
      if (bars < 1) errors.push('benchmarking page: the chart has no bars');
      else await page.locator('figure.benchmark-chart').screenshot({ path: join(artifacts, 'benchmark-chart.png') });
    }
    for (const e of errors) failures.push(`${path}: ${e}`);
    await page.close();
  }
  for (const [from, path, hash] of anchors) {
    const set = ids.get(path);
    if (set && !set.has(hash)) failures.push(`${from}: link to ${path}#${hash}: no element with that id`);
  }
} finally {
  await context.close();
  server.close();
  await rm(userDataDir, { recursive: true, force: true });
}

for (const f of failures) console.error('FAIL ' + f);
console.log(`site-check: ${seen.size} pages, ${links} internal links, ${anchors.length} anchors checked; ${failures.length} problem(s); screenshots in ${artifacts}`);
process.exit(failures.length === 0 ? 0 : 1);
