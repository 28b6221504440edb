// The API key lives in this tab's sessionStorage only: it is gone when the tab closes, and no
// other tab or later visit reads it. Nothing the API answered is stored anywhere (see api.ts).

const SLOT = "vintage.apiKey";

export function readKey(storage: Storage = sessionStorage): string | null {
  const key = storage.getItem(SLOT);
  return key && key.trim() ? key.trim() : null;
}

export function saveKey(key: string, storage: Storage = sessionStorage): void {
  const trimmed = key.trim();
  if (trimmed) storage.setItem(SLOT, trimmed);
  else storage.removeItem(SLOT);
}

export function forgetKey(storage: Storage = sessionStorage): void {
  storage.removeItem(SLOT);
}
