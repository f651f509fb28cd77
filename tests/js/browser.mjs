// Headless Chromium for the tests and benchmarks that run a page (www/tests/page.test.mjs,
// tests/consumers/consumers.test.mjs, benches/js/model-chrome.mjs): one static server on
// localhost and one launch with the flags this machine needs (without the
// background-networking flags Chromium's own connections are refused by the closed network,
// many at a time).
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, normalize } from "node:path";
import { chromium } from "playwright-core";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json" };

/** Serves on 127.0.0.1, at a free port, what `fileFor(path)` names for a request's path
 * (decoded, leading `..` removed): a file's path, or `{ body, type }`. A throw or a missing
 * file answers 404. Resolves to `{ server, base }` (`base` ends with `/`). */
export async function serveFiles(fileFor) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    try {
      const found = fileFor(path);
      const { body, type } =
        typeof found === "string" ? { body: await readFile(found), type: TYPES[extname(found)] ?? "application/octet-stream" } : found;
      res.writeHead(200, { "content-type": type });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, base: `http://127.0.0.1:${server.address().port}/` };
}

/** Debian's Chromium (or `$CHROMIUM`), headless, with the flags above. */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
