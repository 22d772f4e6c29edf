// Builds the browser islands and stylesheet into content-hashed files (with a manifest the
// server reads) and bundles the server. Dependencies stay external to the server bundle, except the Ory SDK (below).
// `--outdir <dir>` builds elsewhere than dist/ (tests build into a temporary directory, so they
// never race another process reading dist/).
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { guestStylesheet } from './guest-css.mjs';
import { ISLAND_BUNDLES, ISLAND_BUNDLES_FILE } from '../server/assets.ts';

const { values: args } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' } } });
const out = path.resolve(args.outdir);
const publicOut = path.join(out, 'public');

await rm(out, { recursive: true, force: true });
await mkdir(publicOut, { recursive: true });
await cp('public', publicOut, { recursive: true, filter: (src) => !src.includes(`${path.sep}styles`) });

const entryPoints = {
  main: 'client/main.ts',
  // One Tap's island is an entry of its own: only a page showing its form loads it (decision 120).
  'one-tap': 'client/islands/one-tap.ts',
  // The web view bridge too: only the mobile gateway's callback page loads it (decision 140).
  'app-bridge': 'client/islands/app-bridge.ts',
  // The avatar upload island: only the profile page, where its markup is, loads it (IslandScript).
  avatar: 'client/avatar.ts',
  // Tooltips likewise: loaded by the pages that render one (views/components/Tooltip.tsx).
  tooltip: 'client/tooltip.ts',
  // Dialogs, popovers and Reload buttons: loaded where one is rendered (Dialog.tsx, Popover.tsx, CrashScreen.tsx).
  dialogs: 'client/dialogs.ts',
  // The page-level loading overlay that follows a form (views/components/LoadingOverlay.tsx `follows`).
  'page-loading': 'client/page-loading.ts',
  // The live-session socket: loaded by signed-in pages only (views/components/LiveSession.tsx, decision 160).
  socket: 'client/socket.ts',
  // Cookie consent (decision 170): the banner island (shown pages only) and analytics (once allowed).
  'consent-banner': 'client/consent-banner.ts',
  analytics: 'client/analytics.ts',
  // The reCAPTCHA widget's re-render after a form swap: only pages with the widget load it.
  captcha: 'client/captcha.ts',
  // The profile page's islands (avatar, tooltip, dialogs, socket) and a signed-in page's (dialogs,
  // socket), each as one file (decision 220).
  ...ISLAND_BUNDLES,
  app: 'public/styles/app.css',
};

const client = await esbuild.build({
  entryPoints,
  outdir: path.join(publicOut, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome80', 'safari13'],
  metafile: true,
  legalComments: 'none',
});

const manifest = {};
for (const [file, meta] of Object.entries(client.metafile.outputs)) {
  if (!meta.entryPoint) continue;
  const logical = `${path.basename(meta.entryPoint).replace(/\.(ts|css)$/, '')}${path.extname(file)}`;
  manifest[logical === 'app.css.css' ? 'app.css' : logical] = `/assets/${path.basename(file)}`;
}
await writeFile(path.join(publicOut, 'manifest.json'), JSON.stringify(manifest, null, 2));

// Which island entries each bundle holds, read from what esbuild put in it (decision 220): the server
// points those islands at the bundle on the pages that load it.
const entryNameOf = Object.fromEntries(Object.entries(entryPoints).map(([name, file]) => [file, name]));
const outputOf = (entry) => Object.values(client.metafile.outputs).find((meta) => meta.entryPoint === entry);
const bundles = Object.fromEntries(
  Object.entries(ISLAND_BUNDLES).map(([bundle, entry]) => [
    bundle,
    Object.keys(outputOf(entry).inputs)
      .filter((input) => input !== entry && entryNameOf[input])
      .map((input) => entryNameOf[input])
      .sort(),
  ]),
);
await writeFile(path.join(publicOut, ISLAND_BUNDLES_FILE), JSON.stringify(bundles, null, 2));

// The static files compressed once, here, at the strongest settings (brotli 11, gzip 9): the server
// sends these as they are (express-static-gzip) instead of compressing on every request.
const COMPRESSIBLE = /\.(js|css|svg|json|ico)$/;
for (const dir of [path.join(publicOut, 'assets'), publicOut]) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile() || !COMPRESSIBLE.test(entry.name) || entry.name === 'manifest.json') continue;
    const file = path.join(dir, entry.name);
    const body = await readFile(file);
    await writeFile(`${file}.br`, brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }));
    await writeFile(`${file}.gz`, gzipSync(body, { level: 9 }));
  }
}

// The first-paint script, which the server inlines in every page's head with its nonce (decision 210):
// a classic script, as small as esbuild makes it. The name is FIRST_PAINT_FILE in server/assets.ts.
const firstPaint = await esbuild.build({
  entryPoints: ['client/first-paint.ts'],
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020', 'chrome80', 'safari13'],
  legalComments: 'none',
  write: false,
});
await writeFile(path.join(publicOut, 'first-paint.js'), firstPaint.outputFiles[0].text.trim());

// The guest auth screens' rules, which the server inlines on them (decision 195); written after the
// compression above, since it is never served as a file. The name is GUEST_CSS_FILE in server/assets.ts.
const fullCss = await readFile(path.join(publicOut, manifest['app.css']), 'utf8');
await writeFile(path.join(publicOut, 'guest-inline.css'), await guestStylesheet(fullCss));

// The Ory SDK is the one dependency bundled into the server: its CommonJS build is one 1.2 MB file of
// every Ory API, kept whole in each process's heap; from its ES module build esbuild keeps the three
// APIs the server uses. Its API classes send through server/flows/sdk-requester.ts, never through axios,
// so `axios` resolves to a module that only says so and axios is never loaded (issue #17 item 6; with
// the escaping below, ~4 MB less heap at start).
const oryClientBundled = {
  name: 'ory-client-bundled',
  setup(build) {
    build.onResolve({ filter: /^@ory\/client$/ }, () => ({ path: path.resolve('node_modules/@ory/client/dist/esm/index.js') }));
    build.onResolve({ filter: /^axios$/ }, () => ({ path: 'axios', namespace: 'axios-unused' }));
    build.onLoad({ filter: /.*/, namespace: 'axios-unused' }, () => ({
      contents: `const unused = () => { throw new Error('axios is not bundled: give the Ory SDK class server/flows/sdk-requester.ts'); };
export default { defaults: {}, request: unused };`,
      loader: 'js',
    }));
  },
};

const server = await esbuild.build({
  entryPoints: { server: 'server/main.ts' },
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  packages: 'external',
  plugins: [oryClientBundled],
  jsx: 'automatic',
  sourcemap: true,
  legalComments: 'none',
  write: false,
});
// esbuild escapes non-ASCII characters in strings, not in the comments it keeps; one such character
// (an ellipsis) makes V8 hold the whole ~1 MB source as two-byte text, twice the memory. esbuild keeps
// comments on lines of their own, so escaping one moves no code in the source map.
for (const file of server.outputFiles) {
  const text = file.path.endsWith('.js')
    ? file.text.replace(/[\u0100-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : file.text;
  await writeFile(file.path, text);
}

console.log(
  `built: ${Object.entries(manifest)
    .map(([k, v]) => `${k} → ${v}`)
    .join(', ')}`,
);
