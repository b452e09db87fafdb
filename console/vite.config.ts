import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// Served by the server under /console (src/console/console.routes.ts); assets hashed so they can be cached for ever.
export default defineConfig({
  base: '/console/',
  plugins: [preact({ prerender: { enabled: false } })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The preload polyfill is an inline script, which the Content-Security-Policy refuses.
    modulePreload: { polyfill: false },
    // Never inline assets as data: URLs (the policy's default-src 'self' refuses them).
    assetsInlineLimit: 0,
    reportCompressedSize: true,
    sourcemap: false,
  },
});
