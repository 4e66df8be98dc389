// VitePress configuration: the sidebar follows the docs/ pages that scripts/prepare.mjs copies in.
import { defineConfig } from 'vitepress';
import { existsSync } from 'node:fs';

// Pages that only some branches have yet (docs/packaging.md comes with the packaging work) join the sidebar when present.
const has = page => existsSync(new URL(`../../../docs/${page}.md`, import.meta.url));

export default defineConfig({
  title: 'Garnet (independent implementation)',
  description: 'A Redis-protocol cache-store server for .NET: documentation',
  cleanUrls: false,
  lastUpdated: false,
  // Dead links fail the build (the browser check crawls them again).
  ignoreDeadLinks: false,
  // No favicon request (the site has none; a 404 would be a console error).
  head: [['link', { rel: 'icon', href: 'data:,' }]],
  markdown: {
    theme: { light: 'github-light', dark: 'github-dark' },
    // GitHub's heading ids, so the links between docs/ pages work the same on GitHub and here: lower case, punctuation
    // dropped, each space a hyphen (no collapsing: "Not yet / known gaps" -> not-yet--known-gaps).
    anchor: { slugify: s => s.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-') },
  },
  themeConfig: {
    nav: [
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Commands', link: '/commands' },
      { text: 'Configuration', link: '/configuration' },
      { text: 'Benchmarking', link: '/benchmarking' },
    ],
    sidebar: [
      { text: 'Using the server', items: [
        { text: 'Getting started', link: '/getting-started' },
        ...(has('packaging') ? [{ text: 'Packages (Docker, tool, NuGet)', link: '/packaging' }] : []),
        { text: 'Configuration', link: '/configuration' },
        { text: 'Commands', link: '/commands' },
        { text: 'Persistence', link: '/persistence' },
        { text: 'Embedding (Garnet.Host)', link: '/host' },
        { text: 'Security and limits', link: '/security' },
        { text: 'Benchmarking', link: '/benchmarking' },
        { text: 'Performance', link: '/performance' },
      ] },
      { text: 'Inside', items: [
        { text: 'Storage engine', link: '/storage' },
        { text: 'Keyspace', link: '/keyspace' },
        { text: 'Networking', link: '/networking' },
        { text: 'Objects', link: '/objects' },
        { text: 'Sets', link: '/objects-sets' },
        { text: 'Sorted sets and geo', link: '/objects-zsets' },
        { text: 'Streams', link: '/objects-streams' },
        { text: 'Transactions and tracking', link: '/transactions' },
        { text: 'Pub/sub', link: '/pubsub' },
        { text: 'Scripting', link: '/scripting' },
        { text: 'Dependencies', link: '/dependencies' },
      ] },
    ],
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    footer: { message: 'Independent implementation: not affiliated with, endorsed by, or derived from Microsoft Garnet or Redis Ltd.' },
  },
});
