// The explorer is built into the Python package (api/ui/static, shipped as vintage/api/ui/static)
// and served by `vintage serve` at /ui: every asset is a file of ours, no CDN, no inline script
// (the page's Content-Security-Policy allows 'self' only).
import { defineConfig } from "vitest/config";

export default defineConfig({
  base: "/ui/",
  build: {
    outDir: "../static",
    emptyOutDir: true,
    // No data: URIs: every asset is a file the CSP's 'self' allows.
    assetsInlineLimit: 0,
    // The graph library is one chunk of its own: the other pages load without it.
    chunkSizeWarningLimit: 1000,
  },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
  },
});
