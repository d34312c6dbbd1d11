import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { META_CONTENT_SECURITY_POLICY } from './src/hosts/csp';

/** Electron loads the renderer from a file, where no header can carry the policy. */
function contentSecurityPolicyMeta(): Plugin {
  return {
    name: 'content-security-policy-meta',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: META_CONTENT_SECURITY_POLICY },
        injectTo: 'head-prepend',
      },
    ],
  };
}

// The renderer is built once and served by Electron or the browser host; no dev server
// is needed to run the kiosk.
export default defineConfig({
  root: fileURLToPath(new URL('./src/renderer', import.meta.url)),
  base: './',
  plugins: [react(), contentSecurityPolicyMeta()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'chrome120',
  },
});
