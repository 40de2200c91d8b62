// Lets `exports` from `cloudflare:workers` (the tests' way to call the Worker) see the Worker's
// own exports. Declared here, not in src/env.ts: the Worker's sources never name their entry.
declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
  }
}
export {};
