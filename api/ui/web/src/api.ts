// The only door to the server: every call sends this tab's key (Authorization: Bearer) and
// hands back what the API answered, typed. Nothing is cached: a page shows what the API
// returned for the key in use when it asked, and the same question under another key is asked
// again (main.ts also drops any answer that arrives after the key or the page changed).

import { readKey } from "./key";
import type { Interval, Value } from "./format";

export interface Source {
  id: string;
  kind: string;
  form: string | null;
  accession: string | null;
  uri: string | null;
  available_at: string;
}

export interface Stale {
  item: string;
  premise: string;
  reason: string;
  when: string | null;
  by: string | null;
  depth: number;
  closed: boolean;
}

export interface FactView {
  id: string;
  subject: string;
  predicate: string;
  value: Value;
  unit: string | null;
  kind: string;
  status: string;
  revision: number;
  valid: Interval;
  knowledge: Interval;
  system: Interval;
}

export interface FactOut extends FactView {
  sources: Source[];
  stale: Stale | null;
}

// GET /v1/facts/{id}/versions: each version with the sources it cites ("inputs": a derived
// version's inputs' sources) and its revision's class (null for the first version).
export interface VersionOut extends FactOut {
  cited: "support" | "inputs";
  change: string | null;
}

export interface Versions {
  fact: string;
  items: VersionOut[];
}

export interface AsOfOut {
  fact: string;
  cutoff: string;
  answer: FactOut | null;
}

export interface Step {
  fact: FactView;
  derived_by: { derivation: { id: string; recipe: string; formula: string | null };
                inputs: { role: string; step: Step }[] }[];
  sources: Source[];
  supersedes: string[];
  superseded_by: string[];
}

export interface Explanation {
  system_at: string;
  root: Step;
  stale: Stale | null;
}

export interface Revised {
  old: FactView;
  new: FactView | null;
  change: string | null;
  revision: string;
}

export interface Impact {
  start: "source" | "fact";
  start_id: string;
  system_at: string;
  changed: FactView[];
  also_supported: FactView[];
  affected: { fact: FactView; depth: number; path: string[]; survives: boolean }[];
  by_kind: Record<string, number>;
  revised: Revised[];
}

export interface Found {
  id: string;
  subject: string;
  predicate: string;
  value: Value;
  unit: string | null;
  status: string;
  score: number;
  sources: Source[];
  sources_via_inputs: boolean;
  valid: Interval;
  knowledge: Interval;
  stale: Stale | null;
}

export interface SearchOut {
  query: string;
  mode: string;
  results: Found[];
  excluded: Record<string, number>;
  legal: number;
  matched: number;
  closed: Stale[];
  refusal: string | null;
  nothing_relevant: boolean;
  relevance: { relevant: boolean; reason: string; best: number | null;
               floor: number | null } | null;
}

export interface TraceOut {
  injection: string;
  thread: string;
  at: string;
  actor: string;
  used: string[];
  trace: Record<string, unknown>;
  items: { id: string; verdict: string; reason: string | null }[];
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly title: string, readonly detail: string) {
    super(`${status} ${title}: ${detail}`);
  }
}

export type Query = Record<string, string | string[] | undefined>;

export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    for (const one of Array.isArray(v) ? v : [v]) if (one !== undefined && one !== "") {
      params.append(k, one);
    }
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const key = readKey();
  const headers: Record<string, string> = { Accept: "application/json" };
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, cache: "no-store", credentials: "omit",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const problem = (parsed ?? {}) as { title?: string; detail?: unknown };
    const detail = typeof problem.detail === "string" ? problem.detail
      : problem.detail !== undefined ? JSON.stringify(problem.detail) : text.slice(0, 300);
    throw new ApiError(response.status, problem.title ?? response.statusText, detail);
  }
  return parsed as T;
}

export const get = <T>(path: string, query: Query = {}): Promise<T> =>
  call<T>("GET", `${path}${queryString(query)}`);
export const post = <T>(path: string, body: unknown): Promise<T> => call<T>("POST", path, body);
export const seg = encodeURIComponent;
