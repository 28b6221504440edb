// The explorer's shell: the header (pages, the key), and the page the hash names. Every page is
// asked for again on each visit and on each key change; an answer that arrives after the user
// moved on, or changed the key, is dropped, so no page ever shows another key's answer.

import "./app.css";
import { ApiError } from "./api";
import { h } from "./dom";
import { forgetKey, readKey, saveKey } from "./key";
import { errorLine, page, type Page } from "./pages/common";
import { evalPage } from "./pages/eval";
import { factPage } from "./pages/fact";
import { explainPage, impactPage } from "./pages/graph";
import { homePage } from "./pages/home";
import { metricPage } from "./pages/metric";
import { searchPage } from "./pages/search";
import { tracePage } from "./pages/trace";
import { parseHash, type Route } from "./router";

let generation = 0;
let current: Page | null = null;

function load(route: Route): Promise<Page> {
  switch (route.page) {
    case "home": return Promise.resolve(homePage());
    case "search": return searchPage(route.params);
    case "fact": return factPage(route.id, route.params);
    case "explain": return explainPage(route.id);
    case "impact": return impactPage(route.id);
    case "metric": return metricPage(route.metric, route.params);
    case "trace": return tracePage(route.id);
    case "eval": return evalPage(route.params);
    case "unknown": return Promise.resolve(page("No such page",
      h("p", {}, "This address names no page of the explorer. "), h("a", { href: "#/" }, "Start here")));
  }
}

function show(main: HTMLElement, next: Page, focus: boolean): void {
  current?.unmount?.();
  current = next;
  main.replaceChildren(next.node);
  main.setAttribute("aria-busy", "false");
  next.mounted?.();
  if (focus) main.querySelector<HTMLElement>("h1")?.focus({ preventScroll: false });
}

async function render(main: HTMLElement, focus: boolean): Promise<void> {
  const mine = ++generation;
  const route = parseHash(location.hash);
  main.setAttribute("aria-busy", "true");
  if (route.page !== "home" && route.page !== "unknown" && readKey() === null) {
    show(main, page("An API key is needed",
      h("p", {}, "Every page shows what the API answers for a key: enter one above "
        + "(`vintage keys create --role reader`). It stays in this tab only.")), focus);
    return;
  }
  main.replaceChildren(h("p", { class: "loading", role: "status" }, "Loading…"));
  let next: Page;
  try {
    next = await load(route);
  } catch (e) {
    // A 404 is also what an id outside the key's reach answers: said as such, nothing more.
    next = page(e instanceof ApiError && e.status === 404 ? "Nothing here for this key"
      : "The API answered with an error", errorLine(e));
  }
  if (mine !== generation) return; // the page or the key changed meanwhile
  show(main, next, focus);
}

function keyForm(main: HTMLElement): HTMLElement {
  const input = h("input", { id: "api-key", type: "password", testid: "key-input",
                             autocomplete: "off", spellcheck: "false", placeholder: "vk_…" });
  const state = h("span", { class: "key-state", role: "status", testid: "key-state" });
  const refresh = (): void => {
    state.textContent = readKey() ? "a key is set for this tab" : "no key";
  };
  refresh();
  return h("form", { class: "key-form", onsubmit: (event: Event) => {
    event.preventDefault();
    saveKey(input.value);
    input.value = "";
    refresh();
    void render(main, false);
  } },
    h("label", { for: "api-key" }, "API key"), input,
    h("button", { type: "submit", testid: "key-save" }, "Use key"),
    h("button", { type: "button", testid: "key-forget", onclick: () => {
      forgetKey();
      refresh();
      void render(main, false);
    } }, "Forget"),
    state);
}

function start(): void {
  const root = document.getElementById("app");
  if (!root) throw new Error("the page has no #app element");
  const main = h("main", { id: "main", tabindex: "-1" });
  const nav = h("nav", { "aria-label": "Pages" }, h("ul", {},
    [["#/", "Home"], ["#/search", "Search"], ["#/eval", "Evaluation"]].map(([href, text]) =>
      h("li", {}, h("a", { href: href! }, text!)))));
  root.replaceChildren(
    h("a", { class: "skip", href: "#main", onclick: (event: Event) => {
      event.preventDefault();
      main.focus();
    } }, "Skip to the page"),
    h("header", { class: "top" }, h("a", { class: "brand", href: "#/" }, "Vintage explorer"), nav,
      keyForm(main)),
    main);
  window.addEventListener("hashchange", () => void render(main, true));
  void render(main, false);
}

start();
