// Hash routing: every page is a link (#/fact/<id>), so the back button, bookmarks and a new tab
// work, and the server serves one file. Pure: parse a hash into a route, build a hash back.

export type Params = Record<string, string>;

export type Route =
  | { page: "home" }
  | { page: "search"; params: Params }
  | { page: "fact"; id: string; params: Params }
  | { page: "explain"; id: string }
  | { page: "impact"; id: string }
  | { page: "metric"; metric: string; params: Params }
  | { page: "trace"; id: string }
  | { page: "eval"; params: Params }
  | { page: "unknown"; hash: string };

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null; // a malformed escape (%E0%A4%A) is an unknown page, not a crash
  }
}

function paramsOf(query: string): Params {
  const out: Params = {};
  for (const [k, v] of new URLSearchParams(query)) out[k] = v;
  return out;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, "");
  const [path, query = ""] = raw.split("?", 2) as [string, string?];
  const parts = path.split("/").filter((p) => p !== "");
  const decoded = parts.map(decode);
  if (decoded.some((p) => p === null || p === "")) return { page: "unknown", hash };
  const [name, arg, ...rest] = decoded as string[];
  const params = paramsOf(query);
  if (name === undefined) return { page: "home" };
  if (rest.length === 0) {
    if (name === "search" && arg === undefined) return { page: "search", params };
    if (name === "eval" && arg === undefined) return { page: "eval", params };
    if (arg !== undefined) {
      switch (name) {
        case "fact": return { page: "fact", id: arg, params };
        case "explain": return { page: "explain", id: arg };
        case "impact": return { page: "impact", id: arg };
        case "metric": return { page: "metric", metric: arg, params };
        case "trace": return { page: "trace", id: arg };
      }
    }
  }
  return { page: "unknown", hash };
}

function withQuery(path: string, params: Params | undefined): string {
  const kept = Object.entries(params ?? {}).filter(([, v]) => v !== "");
  return kept.length ? `${path}?${new URLSearchParams(kept).toString()}` : path;
}

export function hrefFor(route: Route): string {
  const e = encodeURIComponent;
  switch (route.page) {
    case "home": return "#/";
    case "search": return withQuery("#/search", route.params);
    case "fact": return withQuery(`#/fact/${e(route.id)}`, route.params);
    case "explain": return `#/explain/${e(route.id)}`;
    case "impact": return `#/impact/${e(route.id)}`;
    case "metric": return withQuery(`#/metric/${e(route.metric)}`, route.params);
    case "trace": return `#/trace/${e(route.id)}`;
    case "eval": return withQuery("#/eval", route.params);
    case "unknown": return route.hash || "#/";
  }
}

export const factHref = (id: string): string => hrefFor({ page: "fact", id, params: {} });
