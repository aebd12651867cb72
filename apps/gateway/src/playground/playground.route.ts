import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { CHARACTERS_DIR as CHARACTERS_URL } from "@chorus/contracts";
import express, { type IRouter } from "express";
import { pageHeaders } from "../middleware/page-headers.js";

const PLAYGROUND_PATH = "/";

/**
 * The page's own files: plain HTML, CSS and ES modules, served as written (no build step); the same from src/ and
 * dist/.
 */
const PAGE_DIR = fileURLToPath(new URL("../../public/playground/", import.meta.url));
/** The characters' data files, the one source of each character's name and persona: the page reads them as they are. */
const CHARACTERS_DIR = fileURLToPath(CHARACTERS_URL);
/**
 * The SDK's browser build (`@chorus/client/browser`: the folder of its compiled ES modules), which
 * the page talks to the API with. Its own export name: tests map `@chorus/client` to its sources.
 */
const CLIENT_DIR = dirname(createRequire(import.meta.url).resolve("@chorus/client/browser"));

/**
 * Only this origin: the page works offline, and a page that tried to reach another host would be
 * refused by the browser. `blob:` media: speech is played from the bytes the API answered.
 */
const PLAYGROUND_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const playgroundHeaders = pageHeaders(PLAYGROUND_CSP);

/**
 * Revalidated on each load (max-age 0; a 304 while unchanged): after an upgrade no module is stale beside the new ones.
 */
const assets = (dir: string) => express.static(dir, { index: false, maxAge: 0, setHeaders: playgroundHeaders });

/**
 * `GET /`: the playground, a page to chat with the models and hear the replies. Needs no API key
 * to load (the user pastes one into the page) and no network beyond this gateway.
 */
export function addPlaygroundRoutes(router: IRouter): void {
  router.get(PLAYGROUND_PATH, (_req, res, next) => {
    playgroundHeaders(res);
    res.sendFile("index.html", { root: PAGE_DIR }, (error) => error && next(error));
  });
  router.use("/playground/characters", assets(CHARACTERS_DIR));
  router.use("/playground/client", assets(CLIENT_DIR));
  router.use("/playground", assets(PAGE_DIR));
}
