// The evaluation report, as the API keeps it: shown as it came, tables for lists of records.

import { get } from "../api";
import { h } from "../dom";
import { page, type Page } from "./common";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isRecordList(v: Json): v is { [k: string]: Json }[] {
  return Array.isArray(v) && v.length > 0
    && v.every((x) => x !== null && typeof x === "object" && !Array.isArray(x));
}

export function render(value: Json, depth = 0): Node {
  if (value === null || typeof value !== "object") {
    return document.createTextNode(value === null ? "none" : String(value));
  }
  if (isRecordList(value)) {
    const columns = [...new Set(value.flatMap((r) => Object.keys(r)))];
    return h("div", { class: "scroll" }, h("table", {},
      h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, value.map((r) => h("tr", {}, columns.map((c) =>
        h("td", {}, r[c] === undefined ? "" : render(r[c]!, depth + 1))))))));
  }
  if (Array.isArray(value)) {
    return h("ul", {}, value.map((v) => h("li", {}, render(v, depth + 1))));
  }
  return h("dl", { class: depth ? "nested" : "facts" }, Object.entries(value).flatMap(([k, v]) =>
    [h("dt", {}, k), h("dd", {}, render(v, depth + 1))]));
}

export async function evalPage(): Promise<Page> {
  const report = await get<Json>("/v1/eval/report");
  return page("Evaluation report", h("div", { testid: "eval-report" }, render(report)));
}
