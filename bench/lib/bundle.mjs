// esbuild helpers shared by the benchmark and by test/size (the size budget in `npm test`),
// so both measure the same program the same way. Only esbuild (a root devDependency) and
// Node built-ins are used here: test/size must run without bench/node_modules.
import { builtinModules } from "node:module";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { benchDir, repoRoot } from "./paths.mjs";

export { benchDir, repoRoot };

/** toolloop's public entry points and the repo sources they are built from. */
export const TOOLLOOP_ENTRIES = {
  toolloop: "src/index.ts",
  "toolloop/claude": "adapters/claude/index.ts",
  "toolloop/openai": "adapters/openai/index.ts",
  "toolloop/gemini": "adapters/gemini/index.ts",
};

/** Resolves `toolloop` and `toolloop/*` to the repo's sources (the package is not installed in bench/). */
export const toolloopFromSource = {
  name: "toolloop-from-source",
  setup(b) {
    b.onResolve({ filter: /^toolloop(\/.*)?$/ }, (args) => {
      const file = TOOLLOOP_ENTRIES[args.path];
      if (!file) return { errors: [{ text: `unknown toolloop entry ${args.path}` }] };
      return { path: join(repoRoot, file) };
    });
  },
};

const builtins = new Set(builtinModules);
const isBuiltin = (p) => p.startsWith("node:") || builtins.has(p.split("/")[0]);

/**
 * Size of a minimal program, as a browser app would ship it: esbuild, bundled, minified,
 * platform browser, ESM, gzip level 9. `exportName` of `agentFile` is called once, so
 * tree-shaking keeps what one tool-calling loop needs and nothing else. `extraPlugins` run
 * first (size-report.mjs stubs modules out with one to see what they cost).
 */
export async function bundleSize(agentFile, exportName = "jsonAgent", extraPlugins = []) {
  const nodeImports = new Set();
  const result = await build({
    stdin: {
      contents: `import { ${exportName} } from ${JSON.stringify(agentFile)};\n${exportName}({ base: "https://api.example.com" }).run().then((text) => console.log(text));\n`,
      resolveDir: benchDir,
      loader: "js",
    },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    metafile: true,
    logLevel: "silent",
    legalComments: "none",
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [
      ...extraPlugins,
      toolloopFromSource,
      {
        // A package that still imports a Node built-in in its browser build: keep the import
        // (the program cannot run in a page as is) and report it rather than fail.
        name: "node-builtins",
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind !== "entry-point" && isBuiltin(args.path)) {
              nodeImports.add(args.path);
              return { path: args.path, external: true };
            }
            return undefined;
          });
        },
      },
    ],
  });
  const code = result.outputFiles[0].contents;
  return {
    code: result.outputFiles[0].text,
    minified: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    nodeImports: [...nodeImports].sort(),
    metafile: result.metafile,
  };
}

/**
 * Runnable copies of the agent modules for the child processes: toolloop is inlined from
 * the repo sources (as its dist would be), every other package stays an import and loads
 * from node_modules exactly as installed, so import time and memory are the packages' own.
 */
export async function buildRunnable(agentFiles, outdir) {
  await build({
    entryPoints: agentFiles,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
    plugins: [
      toolloopFromSource,
      {
        name: "packages-external",
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => (args.kind === "entry-point" ? undefined : { path: args.path, external: true }));
        },
      },
    ],
  });
}
