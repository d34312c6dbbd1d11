import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is built once and served by the server under /ops/ (server/src/opsConsole);
// no dev server is needed to run it.
export default defineConfig({
  root: fileURLToPath(new URL('./src', import.meta.url)),
  base: '/ops/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
  },
});
